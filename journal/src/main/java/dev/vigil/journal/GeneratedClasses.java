package dev.vigil.journal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * The frame of the per-kind classes {@link RecordReaders} and {@link RecordWriters} generate: a final synthetic class
 * in this package implementing one interface, with a no-argument constructor, defined as a hidden class and
 * instantiated once.
 */
final class GeneratedClasses {
    private GeneratedClasses() {
    }

    /** Starts class {@code simpleName} (in this package) implementing {@code type}, its constructor written. */
    static ClassWriter begin(String simpleName, Class<?> type) {
        String name = GeneratedClasses.class.getPackageName().replace('.', '/') + "/" + simpleName;
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        cw.visit(Opcodes.V17, Opcodes.ACC_FINAL | Opcodes.ACC_SYNTHETIC, name, null, "java/lang/Object",
                new String[] {Type.getInternalName(type)});
        MethodVisitor init = cw.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        init.visitInsn(Opcodes.RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
        return cw;
    }

    /** Defines the finished class as a hidden class of this package and returns its one instance. */
    static <T> T instantiate(ClassWriter cw, Class<T> type, String what) {
        cw.visitEnd();
        try {
            MethodHandles.Lookup hidden = MethodHandles.lookup().defineHiddenClass(cw.toByteArray(), true);
            return type.cast(hidden.findConstructor(hidden.lookupClass(), MethodType.methodType(void.class)).invoke());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("cannot generate " + what, t);
        }
    }
}
