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
 * the kind's first read.
 */
final class RecordReaders {
    /** Reads one body's fields from the cursor into a new record. */
    interface Reader {
        Object read(FieldCursor cursor);
    }

    private static final String CURSOR = Type.getInternalName(FieldCursor.class);

    private RecordReaders() {
    }

    static Reader generate(Class<?> recordClass, Class<?>[] types, String[] names, int[] addedIn, Object[] absent,
            int version) {
        String record = Type.getInternalName(recordClass);
        ClassWriter cw = GeneratedClasses.begin(recordClass.getSimpleName() + "Reader" + version, Reader.class);
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
            m.visitMethodInsn(Opcodes.INVOKESTATIC, CURSOR, read,
                    Type.getMethodDescriptor(t, Type.getType(FieldCursor.class), Type.getType(String.class)), false);
        }
        m.visitMethodInsn(Opcodes.INVOKESPECIAL, record, "<init>",
                MethodType.methodType(void.class, types).toMethodDescriptorString(), false);
        m.visitInsn(Opcodes.ARETURN);
        m.visitMaxs(0, 0);
        m.visitEnd();
        return GeneratedClasses.instantiate(cw, Reader.class, "the reader of " + recordClass.getSimpleName()
                + " layout version=" + version);
    }
}
