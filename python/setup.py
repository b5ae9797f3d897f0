"""Builds the C child runtime (native/, `make build/libvigil-child.so`) into the package, so an installed
vigil_child loads the library it was built with. Install from a checkout (no package index needed):
    pip install --no-build-isolation ./python
"""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
NATIVE = os.path.normpath(os.path.join(HERE, "..", "native"))
LIBRARY = "libvigil-child.so"


class BuildPyWithRuntime(build_py):
    def run(self):
        super().run()
        subprocess.check_call(["make", "-C", NATIVE, "build/" + LIBRARY])
        target = os.path.join(self.build_lib, "vigil_child", LIBRARY)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(NATIVE, "build", LIBRARY), target)


setup(cmdclass={"build_py": BuildPyWithRuntime})
