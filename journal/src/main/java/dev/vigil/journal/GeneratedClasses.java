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
 * instantiated once; or, made at build time, a class file of the jar ({@link #prebuilt}).
 */
final class GeneratedClasses {
    private GeneratedClasses() {
    }

    /** The static field holding the one instance of a class the build wrote, made by its static initialiser. */
    private static final String INSTANCE = "INSTANCE";

    /**
     * Starts class {@code simpleName} (in this package) implementing {@code type}, its constructor written, and its
     * static field {@value #INSTANCE} holding its one instance.
     */
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
        String field = Type.getDescriptor(type);
        cw.visitField(Opcodes.ACC_STATIC | Opcodes.ACC_FINAL, INSTANCE, field, null, null).visitEnd();
        MethodVisitor clinit = cw.visitMethod(Opcodes.ACC_STATIC, "<clinit>", "()V", null, null);
        clinit.visitCode();
        clinit.visitTypeInsn(Opcodes.NEW, name);
        clinit.visitInsn(Opcodes.DUP);
        clinit.visitMethodInsn(Opcodes.INVOKESPECIAL, name, "<init>", "()V", false);
        clinit.visitFieldInsn(Opcodes.PUTSTATIC, name, INSTANCE, field);
        clinit.visitInsn(Opcodes.RETURN);
        clinit.visitMaxs(0, 0);
        clinit.visitEnd();
        return cw;
    }

    /**
     * The one instance of class {@code simpleName} of this package as the build wrote it (a class file of the jar, held
     * by a class-data archive like any other), or null when the build wrote none (classes run from an IDE's output).
     */
    static <T> T prebuilt(String simpleName, Class<T> type) {
        Class<?> c;
        try {
            c = Class.forName(GeneratedClasses.class.getPackageName().concat(".").concat(simpleName), true,
                    GeneratedClasses.class.getClassLoader()); // concat, not +: RecordReaders#className says why
        } catch (ClassNotFoundException notBuilt) {
            return null;
        }
        try {
            // a static field read by reflection: neither a method handle (whose first invoke spins ~10 LambdaForm classes
            // no class-data archive of JDK 17 holds) nor a constructor (JDK 17.0.15 generated a constructor accessor
            // class by the fifth reader, with ~15 more classes loaded for it); a field is read through Unsafe
            return type.cast(c.getDeclaredField(INSTANCE).get(null));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot make the prebuilt " + simpleName, e);
        }
    }

    /** The class file of the finished class, as the build writes it for {@link #prebuilt}. */
    static byte[] bytes(ClassWriter cw) {
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** Defines the finished class as a hidden class of this package and returns its one instance. */
    static <T> T instantiate(ClassWriter cw, Class<T> type, String what) {
        try {
            MethodHandles.Lookup hidden = MethodHandles.lookup().defineHiddenClass(bytes(cw), true);
            return type.cast(hidden.findConstructor(hidden.lookupClass(), MethodType.methodType(void.class)).invoke());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("cannot generate " + what, t);
        }
    }
}
