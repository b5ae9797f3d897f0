package dev.vigil.journal;

import java.util.concurrent.atomic.AtomicInteger;

import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Generates, from a record's components, the class that writes its fields (the newest layout): a hidden class whose
 * {@code write} is straight-line bytecode,
 * <pre>
 *   MailboxTransition r = (MailboxTransition) event;
 *   FieldSink.writeLong(s, r.timeNanos()); FieldSink.writeInt(s, r.orchestratorPid()); FieldSink.writeString(s, r.poolId(), 17); ...
 * </pre>
 * the writing twin of {@link RecordReaders}: no method-handle call per field (the appender's encoding cost), no
 * boxing, the layout still described once, by the record. Each string field has a slot of its own in the sink's cache
 * of the last string written (the constant after it). One class per kind, made on the kind's first write.
 */
final class RecordWriters {
    /** Writes one event's fields into the sink. */
    interface Writer {
        void write(Object event, FieldSink sink);
    }

    private static final String SINK = Type.getInternalName(FieldSink.class);
    /** The next string field's slot in every {@link FieldSink}'s cache of last strings. */
    private static final AtomicInteger STRING_SLOTS = new AtomicInteger();

    private RecordWriters() {
    }

    static Writer generate(Class<?> recordClass, Class<?>[] types, String[] names) {
        String record = Type.getInternalName(recordClass);
        ClassWriter cw = GeneratedClasses.begin(recordClass.getSimpleName() + "Writer", Writer.class);
        MethodVisitor m = cw.visitMethod(Opcodes.ACC_PUBLIC, "write", Type.getMethodDescriptor(Type.VOID_TYPE,
                Type.getType(Object.class), Type.getType(FieldSink.class)), null, null);
        m.visitCode();
        m.visitVarInsn(Opcodes.ALOAD, 1);
        m.visitTypeInsn(Opcodes.CHECKCAST, record);
        m.visitVarInsn(Opcodes.ASTORE, 3);
        for (int i = 0; i < types.length; i++) {
            Type t = Type.getType(types[i]);
            String write = types[i] == long.class ? "writeLong" : types[i] == int.class ? "writeInt"
                    : types[i] == boolean.class ? "writeBoolean" : types[i] == byte[].class ? "writeBytes" : "writeString";
            m.visitVarInsn(Opcodes.ALOAD, 2);
            m.visitVarInsn(Opcodes.ALOAD, 3);
            m.visitMethodInsn(Opcodes.INVOKEVIRTUAL, record, names[i], Type.getMethodDescriptor(t), false);
            if (types[i] == String.class) {
                m.visitLdcInsn(STRING_SLOTS.getAndIncrement());
                m.visitMethodInsn(Opcodes.INVOKESTATIC, SINK, write, Type.getMethodDescriptor(Type.VOID_TYPE,
                        Type.getType(FieldSink.class), t, Type.INT_TYPE), false);
                continue;
            }
            m.visitMethodInsn(Opcodes.INVOKESTATIC, SINK, write,
                    Type.getMethodDescriptor(Type.VOID_TYPE, Type.getType(FieldSink.class), t), false);
        }
        m.visitInsn(Opcodes.RETURN);
        m.visitMaxs(0, 0);
        m.visitEnd();
        return GeneratedClasses.instantiate(cw, Writer.class, "the writer of " + recordClass.getSimpleName());
    }
}
