package dev.vigil.journal;

import java.lang.invoke.MethodType;

import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Generates, from a record's components, the class that reads one layout version of its body: a
 * hidden class whose {@code read} is straight-line bytecode,
 * <pre>
 *   return new MailboxTransition(FieldCursor.readLong(c, "timeNanos"), FieldCursor.readInt(c, "orchestratorPid"),
 *           FieldCursor.readString(c, "poolId"), ...);
 * </pre>
 * with a field the version does not have pushed as its absent value. The bytecode reads the fields
 * in declaration order, the order they were written in. No boxing, no argument array, a plain {@code new}: what a hand-written decoder would be, written by
 * no one (the layout stays described once, by the record). One class per kind and version, made on
 * the kind's first read; for the kinds of {@link EventType}, made by the build instead ({@link #main}: every layout
 * version of every kind, written into the jar as class files, so a short command neither runs ASM nor defines hidden
 * classes, and the class-data archives of the launchers hold them).
 */
final class RecordReaders {
    /** Reads one body's fields from the cursor into a new record. */
    interface Reader {
        Object read(FieldCursor cursor);
    }

    private RecordReaders() {
    }

    /**
     * Writes the reader of every layout version of every {@link EventType} kind as a class file under {@code args[0]}
     * (the journal module's classes directory; the build runs this after compiling, pom.xml), where
     * {@link #prebuilt} finds them.
     */
    public static void main(String[] args) throws java.io.IOException {
        java.nio.file.Path dir = java.nio.file.Path.of(args[0]).resolve(
                RecordReaders.class.getPackageName().replace('.', java.io.File.separatorChar));
        int written = 0;
        for (EventType type : EventType.values()) {
            for (int version = 1; version <= type.version(); version++) {
                String name = className(type.recordClass(), version);
                java.nio.file.Files.write(dir.resolve(name + ".class"),
                        GeneratedClasses.bytes(EventCodec.layout(type).readerClass(name, version)));
                written++;
            }
        }
        System.out.println("vigil: " + written + " record readers written to " + dir);
    }

    /** The reader of {@code recordClass}'s layout {@code version} that the build wrote, or null when it wrote none. */
    static Reader prebuilt(Class<?> recordClass, int version) {
        return GeneratedClasses.prebuilt(className(recordClass, version), Reader.class);
    }

    private static String className(Class<?> recordClass, int version) {
        // String.concat, not +: this runs on a kind's first read, where the first run of an invokedynamic concatenation
        // spins method-handle classes that JDK 17's class-data archive does not hold (the journal compiles + that way)
        return recordClass.getSimpleName().concat("Reader").concat(Integer.toString(version));
    }

    static Reader generate(Class<?> recordClass, Class<?>[] types, String[] names, int[] addedIn, Object[] absent,
            int version) {
        return GeneratedClasses.instantiate(classFile(className(recordClass, version), recordClass, types, names,
                addedIn, absent, version), Reader.class, "the reader of " + recordClass.getSimpleName()
                + " layout version=" + version);
    }

    /** The class {@code simpleName} that reads layout {@code version} of {@code recordClass}'s body, not yet ended. */
    static ClassWriter classFile(String simpleName, Class<?> recordClass, Class<?>[] types, String[] names,
            int[] addedIn, Object[] absent, int version) {
        String record = Type.getInternalName(recordClass);
        String cursor = Type.getInternalName(FieldCursor.class);
        ClassWriter cw = GeneratedClasses.begin(simpleName, Reader.class);
        MethodVisitor m = cw.visitMethod(Opcodes.ACC_PUBLIC, "read", Type.getMethodDescriptor(Type.getType(Object.class),
                Type.getType(FieldCursor.class)), null, null);
        m.visitCode();
        m.visitTypeInsn(Opcodes.NEW, record);
        m.visitInsn(Opcodes.DUP);
        for (int i = 0; i < types.length; i++) {
            Type t = Type.getType(types[i]);
            if (addedIn[i] > version) {
                if (types[i] == boolean.class) {
                    m.visitInsn((Boolean) absent[i] ? Opcodes.ICONST_1 : Opcodes.ICONST_0);
                } else if (types[i] == byte[].class) {
                    m.visitInsn(Opcodes.ICONST_0); // an absent byte array is an empty one
                    m.visitIntInsn(Opcodes.NEWARRAY, Opcodes.T_BYTE);
                } else {
                    m.visitLdcInsn(absent[i]);
                }
                continue;
            }
            String read = types[i] == long.class ? "readLong" : types[i] == int.class ? "readInt"
                    : types[i] == boolean.class ? "readBoolean" : types[i] == byte[].class ? "readBytes" : "readString";
            m.visitVarInsn(Opcodes.ALOAD, 1);
            m.visitLdcInsn(names[i]);
            m.visitMethodInsn(Opcodes.INVOKESTATIC, cursor, read,
                    Type.getMethodDescriptor(t, Type.getType(FieldCursor.class), Type.getType(String.class)), false);
        }
        m.visitMethodInsn(Opcodes.INVOKESPECIAL, record, "<init>",
                MethodType.methodType(void.class, types).toMethodDescriptorString(), false);
        m.visitInsn(Opcodes.ARETURN);
        m.visitMaxs(0, 0);
        m.visitEnd();
        return cw;
    }
}
