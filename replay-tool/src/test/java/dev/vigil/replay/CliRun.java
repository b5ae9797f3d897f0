package dev.vigil.replay;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** One in-process run of the replay CLI: exit code, stdout and stderr. */
record CliRun(int exit, String out, String err) {

    static CliRun of(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = ReplayCli.execute(o, e, args);
        }
        return new CliRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Bad input: exactly one line on stderr, starting with ERR:, no stack trace. */
    boolean isOneErrLine() {
        String[] lines = err.strip().split("\n");
        return exit == ReplayCli.EXIT_BAD_INPUT && lines.length == 1 && lines[0].startsWith("ERR: ")
                && !err.contains("\tat ");
    }

    @Override
    public String toString() {
        return "exit=" + exit + "\n--- out ---\n" + out + "--- err ---\n" + err;
    }
}
