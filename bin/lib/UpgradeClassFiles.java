import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.commons.JSRInlinerAdapter;

/**
 * Build step (the parent pom, phase package, the modules whose launcher has a class-data archive: orchestrator,
 * replay-tool): rewrites, in place, the jars of a target/lib whose
 * class files are older than Java 6 (picocli targets Java 5; so do ASM and jnr-x86asm, which jnr-ffi and the journal's
 * generated readers and writers load) to class files of version 52 with stack-map frames. The JDK's class-data
 * archive cannot hold a class file older than version 50, so without this every `vigil` and `vigil-replay` start
 * parsed picocli's ~150 classes from its jar (~0.25 s of the main thread at load 10, bin/vigil-bench start) and the
 * preload thread ASM's and jnr-x86asm's. The classes are otherwise unchanged: the same members and instructions; the
 * frames are computed by ASM from the type hierarchy of the directory's own jars and the JDK. Class files of version 50
 * and later and every other entry are copied as they are, so running it twice changes nothing. A signed jar, and a jar
 * whose frames name a type found in neither, are left as they are (the latter with a warning; it starts as before).
 *
 * Usage (single-file source; ASM, asm-tree and asm-commons on the class path): java -cp ASM UpgradeClassFiles.java LIB_DIR
 */
public final class UpgradeClassFiles {
    /** Class files below this version cannot enter a class-data archive (JDK 17, "Pre JDK 6 class not supported"). */
    private static final int OLDEST_ARCHIVABLE = Opcodes.V1_6;

    public static void main(String[] args) throws IOException {
        Path lib = Path.of(args[0]);
        if (!Files.isDirectory(lib)) {
            return;
        }
        List<Path> jars;
        try (var files = Files.list(lib)) {
            jars = files.filter(f -> f.toString().endsWith(".jar")).sorted().toList();
        }
        Map<String, ClassReader> all = new HashMap<>();
        for (Path jar : jars) {
            all.putAll(classes(jar));
        }
        for (Path jar : jars) {
            try {
                int upgraded = upgrade(jar, all);
                if (upgraded > 0) {
                    System.out.println("vigil: " + jar + ": " + upgraded + " class files upgraded to version 52 (class-data archive)");
                }
            } catch (UnknownType e) {
                System.out.println("WARNING: " + jar + " left as it is (its classes stay out of the class-data archive): "
                        + e.getMessage());
            }
        }
    }

    /** The class files of a jar (outside META-INF) by internal name. */
    private static Map<String, ClassReader> classes(Path jar) throws IOException {
        Map<String, ClassReader> classes = new HashMap<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (ZipEntry e : java.util.Collections.list(zip.entries())) {
                if (isClass(e)) {
                    try (InputStream in = zip.getInputStream(e)) {
                        ClassReader r = new ClassReader(in.readAllBytes());
                        classes.put(r.getClassName(), r);
                    }
                }
            }
        }
        return classes;
    }

    private static boolean signed(Path jar) throws IOException {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            return zip.stream().map(ZipEntry::getName)
                    .anyMatch(n -> n.startsWith("META-INF/") && (n.endsWith(".SF") || n.endsWith(".RSA") || n.endsWith(".DSA") || n.endsWith(".EC")));
        }
    }

    private static boolean isClass(ZipEntry e) {
        return e.getName().endsWith(".class") && !e.getName().startsWith("META-INF/");
    }

    /** Rewrites JAR in place; returns how many class files it upgraded (0: the file is left untouched). */
    static int upgrade(Path jar, Map<String, ClassReader> all) throws IOException {
        Map<String, ClassReader> own = classes(jar);
        if (own.values().stream().noneMatch(UpgradeClassFiles::tooOld) || signed(jar)) {
            return 0; // nothing to upgrade, or a signed jar, whose signature would no longer match
        }
        Path tmp = jar.resolveSibling(jar.getFileName() + ".tmp");
        int upgraded = 0;
        try (ZipFile zip = new ZipFile(jar.toFile());
                OutputStream file = Files.newOutputStream(tmp); ZipOutputStream out = new ZipOutputStream(file)) {
            for (ZipEntry e : java.util.Collections.list(zip.entries())) {
                ZipEntry copy = new ZipEntry(e.getName());
                copy.setTime(e.getTime()); // the jar's own entry times: the build stays reproducible
                out.putNextEntry(copy);
                ClassReader r = isClass(e) ? own.get(e.getName().substring(0, e.getName().length() - ".class".length())) : null;
                if (r != null && tooOld(r)) {
                    out.write(upgraded(r, all));
                    upgraded++;
                } else {
                    try (InputStream in = zip.getInputStream(e)) {
                        in.transferTo(out);
                    }
                }
                out.closeEntry();
            }
        } catch (UnknownType e) {
            Files.delete(tmp);
            throw e;
        }
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return upgraded;
    }

    /** A type a frame needs that is neither in the directory's jars nor in the JDK. */
    private static final class UnknownType extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnknownType(String type) {
            super(type.replace('/', '.') + " is in neither the jars nor the JDK");
        }
    }

    private static boolean tooOld(ClassReader r) {
        return r.readUnsignedShort(6) < OLDEST_ARCHIVABLE;
    }

    private static byte[] upgraded(ClassReader r, Map<String, ClassReader> known) {
        ClassWriter w = new ClassWriter(ClassWriter.COMPUTE_FRAMES) {
            @Override
            protected String getCommonSuperClass(String a, String b) {
                return commonSuperClass(a, b, known);
            }
        };
        r.accept(new ClassVisitor(Opcodes.ASM9, w) {
            @Override
            public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
                super.visit(Opcodes.V1_8, access, name, signature, superName, interfaces);
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String signature, String[] exceptions) {
                // jsr/ret have no stack-map form: inlined, as javac itself has compiled finally blocks since Java 6.
                return new JSRInlinerAdapter(super.visitMethod(access, name, desc, signature, exceptions),
                        access, name, desc, signature, exceptions);
            }
        }, ClassReader.SKIP_FRAMES);
        return w.toByteArray();
    }

    /** The nearest common superclass of two internal names, from the known class files or else the JDK's classes. */
    private static String commonSuperClass(String a, String b, Map<String, ClassReader> known) {
        if (isInterface(a, known) || isInterface(b, known)) {
            return "java/lang/Object";
        }
        java.util.Set<String> above = new java.util.HashSet<>();
        for (String t = a; t != null; t = superName(t, known)) {
            above.add(t);
        }
        for (String t = b; t != null; t = superName(t, known)) {
            if (above.contains(t)) {
                return t;
            }
        }
        return "java/lang/Object";
    }

    private static boolean isInterface(String type, Map<String, ClassReader> known) {
        ClassReader r = known.get(type);
        return r != null ? (r.getAccess() & Opcodes.ACC_INTERFACE) != 0 : jdkClass(type).isInterface();
    }

    private static String superName(String type, Map<String, ClassReader> known) {
        ClassReader r = known.get(type);
        if (r != null) {
            return r.getSuperName();
        }
        Class<?> s = jdkClass(type).getSuperclass();
        return s == null ? null : s.getName().replace('.', '/');
    }

    private static Class<?> jdkClass(String type) {
        try {
            return Class.forName(type.replace('/', '.'), false, ClassLoader.getPlatformClassLoader());
        } catch (ClassNotFoundException e) {
            throw new UnknownType(type);
        }
    }
}
