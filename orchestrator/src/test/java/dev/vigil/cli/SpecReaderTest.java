package dev.vigil.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class SpecReaderTest {
    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    @Test
    void aValidSpecIsReadWithDefaultsFilledIn() throws IOException {
        RunSpec spec = SpecReader.read(write("ok.json", """
                {"pools": [{"id": "p1", "groups": [
                    {"name": "chips", "kind": "exec", "command": ["/bin/sleep", "30"], "children": 2},
                    {"name": "java", "kind": "java", "children": 1}]}]}
                """));
        assertEquals(dir.resolve("vigil-journal").toString(), spec.journalDir(), "relative to the spec's folder");
        assertEquals("sticky", spec.protocol());
        assertEquals(1, spec.cycles());
        assertEquals("term-then-kill", spec.close().escalation());
        assertEquals(List.of("/bin/sleep", "30"), spec.pools().get(0).groups().get(0).command());
        assertEquals(2, spec.pools().get(0).groups().get(0).children());
    }

    /**
     * The demo children's settings are checked with the spec: a value that is not well formed, or a VIGIL_DEMO_ name that
     * is none of them (a typo), is named at its path, nothing started. Before, "200ms" ran as 200 ms in a C child and
     * VIGIL_DEMO_TEARDOWN_MS was ignored.
     */
    @Test
    void demoSettingsInAGroupsEnvAreCheckedWithTheSpec() throws IOException {
        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("demo.json", """
                {"pools": [{"id": "p1", "groups": [
                    {"name": "chips", "kind": "c", "children": 2,
                     "env": {"VIGIL_DEMO_TEARDOWN_MILLIS": "200ms", "VIGIL_DEMO_GATE": "on", "VIGIL_DEMO_TEARDOWN_MS": "200",
                             "VIGIL_DEMO_EXIT_CODE": " 7 ", "MY_OWN": "x"}}]}]}
                """)));
        List<String> got = e.problems().stream().map(SpecProblem::toString).toList();
        assertEquals(List.of(
                "pools[0].groups[0].env.VIGIL_DEMO_TEARDOWN_MILLIS: not a whole number (milliseconds, 0..9223372036854): '200ms'",
                "pools[0].groups[0].env.VIGIL_DEMO_GATE: not 1/0, true/false or yes/no: 'on'",
                "pools[0].groups[0].env.VIGIL_DEMO_TEARDOWN_MS: unknown demo setting (known: VIGIL_DEMO_DELAY_MICROS, "
                        + "VIGIL_DEMO_GATE, VIGIL_DEMO_TEARDOWN_MILLIS, VIGIL_DEMO_TEARDOWN_BEAT, VIGIL_DEMO_IGNORE_SHUTDOWN, "
                        + "VIGIL_DEMO_EXIT_CODE, VIGIL_DEMO_FAIL_INIT)"), got);
    }

    /**
     * What exec would mangle without a word is refused up front: a NUL in an argument or a variable cut it there (the
     * child saw "x" for x NUL y), a name holding '=' set another variable ("X=Y": 1 came as X = "Y=1"), an empty
     * name came as "=2". Before, each such spec ran.
     */
    @Test
    void argumentsAndVariablesThatExecWouldCutOrMisreadAreRefusedNamingEach() throws IOException {
        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("nul.json", """
                {"pools": [{"id": "p1", "groups": [
                    {"name": "g", "kind": "exec", "command": ["/bin/sh", "-c", "echo a\\u0000b"], "children": 1,
                     "env": {"X=Y": "1", "": "2", "A": "x\\u0000y", "OK": "fine"}}]}]}
                """)));
        List<String> got = e.problems().stream().map(SpecProblem::toString).sorted().toList();
        assertEquals(List.of(
                "pools[0].groups[0].command[2]: holds a NUL character (\\u0000): exec would cut it there",
                "pools[0].groups[0].env.: name is empty: a variable needs a name",
                "pools[0].groups[0].env.A: variable A holds a NUL character (\\u0000): exec would cut it there",
                "pools[0].groups[0].env.X=Y: name 'X=Y' holds '=': the child would read it as variable 'X'"), got);
        IllegalArgumentException api = assertThrows(IllegalArgumentException.class,
                () -> dev.vigil.pool.ChildSpec.exec("/bin/true").withEnv("X=Y", "1"));
        assertTrue(api.getMessage().contains("holds '='"), api.getMessage());
        api = assertThrows(IllegalArgumentException.class, () -> dev.vigil.pool.ChildSpec.exec("/bin/echo", "a\u0000b"));
        assertEquals("child argument 'a\\u0000b' holds a NUL character (\\u0000): exec would cut it there", api.getMessage());
    }

    /**
     * A YAML tag is refused naming its field and line, whatever it names: a type a YAML loader would build
     * ({@code !!java.io.File}), a core one ({@code !!str}), a local one, a tagged collection. Before, the parser gave the
     * plain value and the spec ran ({@code id: !!java.io.File a} became pool "a").
     */
    @Test
    void aYamlTagIsRefusedNamingItsFieldAndLine() throws IOException {
        for (String[] c : new String[][] {
                {"id: !!java.io.File a", "pools[0].id: the YAML tag !!java.io.File is not allowed (line 2, column 9)"},
                {"id: !!str a", "pools[0].id: the YAML tag !!str is not allowed (line 2, column 9)"},
                {"id: !mine a", "pools[0].id: the YAML tag !mine is not allowed (line 2, column 9)"}}) {
            SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("tag.yaml",
                    "pools:\n  - " + c[0] + "\n    groups: [{name: g, kind: exec, command: [/bin/true], children: 1}]\n")));
            List<String> got = e.problems().stream().map(SpecProblem::toString).toList();
            assertEquals(1, got.size(), got.toString());
            assertTrue(got.get(0).startsWith(c[1] + ": a spec takes plain values"), got.get(0));
            assertTrue(e.getMessage().contains(dir.resolve("tag.yaml").toString()), e.getMessage());
        }
        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("set.yaml",
                "pools:\n  - id: p\n    groups:\n      - name: g\n        kind: exec\n        command: !!seq [/bin/true]\n"
                        + "        children: 1\n")));
        assertEquals(List.of("pools[0].groups[0].command: the YAML tag !!seq is not allowed (line 6, column 18): a spec "
                + "takes plain values, write the value without the tag"),
                e.problems().stream().map(SpecProblem::toString).toList());
    }

    /**
     * An argument or a variable longer than exec takes (MAX_ARG_STRLEN, 128 KiB with its NUL) is refused up front naming
     * its field. Before, the spec ran and the pool's start failed (exit 1) in a line holding the whole argument.
     */
    @Test
    void anArgumentOrVariableLongerThanExecTakesIsRefusedNamingIt() throws IOException {
        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("long.json",
                "{\"pools\": [{\"id\": \"p\", \"groups\": [{\"name\": \"g\", \"kind\": \"exec\", \"children\": 1,"
                        + " \"command\": [\"/bin/echo\", \"" + "y".repeat(140_000) + "\"], \"env\": {\"BIG\": \""
                        + "x".repeat(200_000) + "\"}}]}]}")));
        List<String> got = e.problems().stream().map(SpecProblem::toString).sorted().toList();
        assertEquals(List.of("pools[0].groups[0].command[1]: is 140001 bytes with its NUL, more than the 131072 one exec "
                        + "argument or variable may be (MAX_ARG_STRLEN): exec would fail with E2BIG",
                "pools[0].groups[0].env.BIG: variable BIG is 200005 bytes with its NUL, more than the 131072 one exec "
                        + "argument or variable may be (MAX_ARG_STRLEN): exec would fail with E2BIG"), got);
    }

    /**
     * Arguments and environment too large for exec all together (each string under 128 KiB) are refused when the spec
     * is read, by the kernel's rules (ExecLimits; ExecLimitsTest checks them against real execs), at the field that
     * weighs most, with the pool, the group and the sizes. Before, the spec passed and the pool's start failed at its
     * first spawn (E2BIG). A group just inside the room passes.
     */
    @Test
    void argumentsAndEnvironmentTooLargeForExecTogetherAreRefusedNamingPoolGroupFieldAndSizes() throws IOException {
        long space = dev.vigil.spawn.ExecLimits.space(dev.vigil.spawn.ExecLimits.stackLimit());
        int strings = (int) (space / 100_000) + 2; // each 100,000 bytes: under MAX_ARG_STRLEN, too many together
        StringBuilder env = new StringBuilder();
        StringBuilder options = new StringBuilder();
        for (int i = 0; i < strings; i++) {
            env.append(i == 0 ? "" : ", ").append("\"V").append(i).append("\": \"").append("x".repeat(100_000)).append('"');
            options.append(", \"-Dv").append(i).append('=').append("y".repeat(100_000)).append('"');
        }
        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("large.json",
                "{\"pools\": [{\"id\": \"p\", \"groups\": [{\"name\": \"g\", \"kind\": \"exec\", \"children\": 1,"
                        + " \"command\": [\"/bin/true\"], \"env\": {" + env + "}}]},"
                        + " {\"id\": \"q\", \"groups\": [{\"name\": \"fits\", \"kind\": \"exec\", \"children\": 1,"
                        + " \"command\": [\"/bin/true\"], \"env\": {\"SMALL\": \"" + "z".repeat(100_000) + "\"}},"
                        + " {\"name\": \"h\", \"kind\": \"java\", \"children\": 1, \"jvmOptions\": [\"-Xmx64m\"" + options
                        + "]}]}]}")));
        List<String> got = e.problems().stream().map(SpecProblem::toString).toList();
        assertEquals(2, got.size(), got.toString());
        assertTrue(got.get(0).startsWith("pools[0].groups[0].env: pool p group g: too large for exec (E2BIG): a child's exec"
                + " would take "), got.get(0));
        assertTrue(got.get(0).contains("more than the " + space + " bytes (") && got.get(0).contains(" exec takes: ")
                && got.get(0).contains("env " + (strings * 100_003L + sumDigits(strings)) + " bytes in " + strings + " variable(s)"), got.get(0));
        assertTrue(got.get(1).startsWith("pools[1].groups[1].jvmOptions: pool q group h: too large for exec (E2BIG)"),
                got.get(1));
    }

    /** The digits of 0..n-1 written out (the variable names' numbers). */
    private static long sumDigits(int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += Integer.toString(i).length();
        }
        return sum;
    }

    @Test
    void aSpecNestedTooDeepIsNamedInTheSpecsWordsNotTheParsersMethod() throws IOException {
        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("deep.json",
                "{\"pools\":" + "[".repeat(1500) + "]".repeat(1500) + "}")));
        assertEquals(List.of("$: not valid JSON: nested 1001 levels deep, more than the 1000 a spec may be"),
                e.problems().stream().map(SpecProblem::toString).toList());
    }

    @Test
    void javaAndPythonGroupsTakeAClassPathAndJavaGroupsJvmOptionsAndNothingElseDoes() throws IOException {
        Path lib = Files.createDirectories(dir.resolve("lib"));
        RunSpec spec = SpecReader.read(write("user.json", """
                {"pools": [{"id": "p1", "groups": [
                    {"name": "hosts", "kind": "java", "children": 1, "handler": "dev.vigil.child.demo.DemoHandler",
                     "classPath": ["%s"],
                     "jvmOptions": ["-Xmx64m"]},
                    {"name": "py", "kind": "python", "children": 2, "handler": "m:H", "classPath": ["%s"]}]}]}
                """.formatted(lib, lib)));
        RunSpec.Group java = spec.pools().get(0).groups().get(0);
        assertEquals(List.of(lib.toString()), java.classPath());
        assertEquals(List.of("-Xmx64m"), java.jvmOptions());
        assertEquals("python", spec.pools().get(0).groups().get(1).kind());
        assertEquals(List.of("-Xmx64m"), PoolRunner.childSpec(java).runtimeOptions());
        assertEquals("m:H", PoolRunner.childSpec(spec.pools().get(0).groups().get(1)).program());

        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("wrong.json", """
                {"pools": [{"id": "p1", "groups": [
                    {"name": "py", "kind": "python", "children": 1, "jvmOptions": ["-Xmx1g"], "command": ["x"],
                     "classPath": ["/no/such/dir"]},
                    {"name": "c", "kind": "c", "children": 1, "classPath": ["%s"], "handler": "H"}]}]}
                """.formatted(lib))));
        for (String expected : List.of("pools[0].groups[0].jvmOptions: only for kind java",
                "pools[0].groups[0].command: not used for kind python (set handler to a module:Class)",
                "pools[0].groups[0].classPath[0]: no such file or directory '/no/such/dir'",
                "pools[0].groups[1].classPath: only for kind java or python (where the handler lives)",
                "pools[0].groups[1].handler: only for kind java or python")) {
            assertTrue(e.problems().stream().anyMatch(p -> p.toString().equals(expected)), () -> "missing '" + expected + "' in " + e.problems());
        }
    }

    @Test
    void yamlSpecsAreReadToo() throws IOException {
        RunSpec spec = SpecReader.read(write("ok.yaml", """
                protocol: legacy
                cycles: 3
                pools:
                  - id: p1
                    groups:
                      - {name: g, kind: exec, command: /bin/true, children: 4}
                """));
        assertEquals("legacy", spec.protocol());
        assertEquals(3, spec.cycles());
        assertEquals(4, spec.pools().get(0).groups().get(0).children());
    }

    @Test
    void everyMistakeIsReportedAtOnceWithItsPath() throws IOException {
        Path notExecutable = write("data.txt", "just data");
        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("bad.json", """
                {"cycles": -1, "protocol": "sloppy", "colse": {},
                 "close": {"windowMs": "soon", "escalation": "pray"},
                 "pools": [{"groups": [
                    {"name": "a", "kind": "exec", "command": ["/no/such/binary"], "children": 0},
                    {"name": "a", "kind": "teapot", "children": "two"},
                    {"kind": "exec", "children": 1},
                    {"name": "c", "kind": "exec", "command": ["DATA"], "children": 1, "stopSignal": "NOPE"}]}]}
                """.replace("DATA", notExecutable.toString()))));
        List<String> got = e.problems().stream().map(SpecProblem::toString).toList();
        List<String> expected = List.of(
                "cycles: must be >= 1",
                "protocol: unknown value 'sloppy', expected one of [legacy, sticky]",
                "close.windowMs: must be an integer",
                "close.escalation: unknown value 'pray', expected one of [leak, term-then-kill]",
                "pools[0].groups[0].children: must be >= 1",
                "pools[0].groups[0].command[0]: command '/no/such/binary' does not exist",
                "pools[0].groups[1].kind: unknown value 'teapot', expected one of [c, exec, java, mailbox-exec, python]",
                "pools[0].groups[1].children: must be an integer",
                "pools[0].groups[1].name: duplicate group name 'a'",
                "pools[0].groups[2].name: required",
                "pools[0].groups[2].command: required for kind exec",
                "pools[0].groups[3].command[0]: command '" + notExecutable + "' is not an executable file",
                "pools[0].groups[3].stopSignal: unknown signal 'NOPE' (use a name like TERM or a number)",
                "colse: unknown field");
        for (String line : expected) {
            assertTrue(got.contains(line), "missing problem '" + line + "' in " + got);
        }
        assertEquals(expected.size(), got.size(), "unexpected extra problems: " + got);
        assertTrue(e.getMessage().contains("14 error(s)"), e.getMessage());
    }

    /**
     * A whole number written with an exponent or a fraction ({@code 1e9}, {@code 4.0}: JSON floating point) is refused
     * with the digits to write, quoting the number as written; before, "must be an integer", which it was. One too
     * large for a long says so, as written: {@code 1e300} was printed with all its 301 digits (and as {@code 1.0E300}).
     */
    @Test
    void aWholeNumberInAnExponentIsRefusedWithTheDigitsToWrite() throws IOException {
        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("float.json", """
                {"cycles": 4.0, "close": {"windowMs": 99999999999999999999, "hardCapMs": 1e300, "graceMs": -2.5E+40},
                 "pools": [{"id": "p", "groups": [{"name": "c", "kind": "c", "children": 1e9, "stopSignal": 1.5e3000},
                                                  {"name": "d", "kind": "c", "children": 1.5,
                                                   "stopSignal": 123456789012345678901234567890123456789012345678901234567890}]}]}
                """)));
        assertEquals(List.of("cycles: must be an integer written in digits: 4, not 4.0",
                "close.windowMs: too large",
                "close.hardCapMs: too large: 1e300",
                "close.graceMs: too large: -2.5E+40",
                "pools[0].groups[0].children: must be an integer written in digits: 1000000000, not 1e9",
                "pools[0].groups[0].stopSignal: '1.5e3000' is not a whole number: write a name or a number such as 15",
                "pools[0].groups[1].children: must be an integer",
                "pools[0].groups[1].stopSignal: unknown signal '1234567890123456789012345678901234567890... (60 characters)'"
                        + " (use a name like TERM or a number)"),
                e.problems().stream().map(SpecProblem::toString).toList());
        SpecInvalidException yaml = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("float.yaml", """
                close: {hardCapMs: 1.0e+300, windowMs: 2.0e3}
                pools: [{id: p, groups: [{name: c, kind: c, children: 1}]}]
                """)));
        assertEquals(List.of("close.windowMs: must be an integer written in digits: 2000, not 2.0e3",
                "close.hardCapMs: too large: 1.0e+300"), yaml.problems().stream().map(SpecProblem::toString).toList());
    }

    /**
     * Names that differ but name the same child log files ('/' becomes '_') are refused naming both: before, pools
     * "a/b" and "a_b" both ran, their children appending to a_b/c-0.err and each close's report showing the other
     * pool's stderr as its child's.
     */
    @Test
    void twoNamesThatNameTheSameChildLogFilesAreRefusedNamingBoth() throws IOException {
        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("clash.json", """
                {"pools": [
                   {"id": "a/b", "groups": [{"name": "c", "kind": "c", "children": 1}]},
                   {"id": "a_b", "groups": [{"name": "x\\u0001y", "kind": "c", "children": 1},
                                            {"name": "x_y", "kind": "c", "children": 1},
                                            {"name": "..", "kind": "c", "children": 1}]}]}
                """)));
        List<String> got = e.problems().stream().map(SpecProblem::toString).toList();
        assertEquals(List.of(
                "pools[1].groups[1].name: 'x_y' and the group name 'x\\u0001y' name the same child log files ('x_y': '/' and"
                        + " control characters become '_'); rename one",
                "pools[1].id: 'a_b' and the pool id 'a/b' name the same child log files ('a_b': '/' and control characters"
                        + " become '_'); rename one"), got);
    }

    @Test
    void aStopSignalIsANameOrANumberAndAnyOtherNumberIsOneProblemNamingTheField() throws IOException {
        RunSpec spec = SpecReader.read(write("signals.json", """
                {"pools": [{"id": "p1", "groups": [
                    {"name": "a", "kind": "exec", "command": ["/bin/sleep", "30"], "children": 1, "stopSignal": 2},
                    {"name": "b", "kind": "exec", "command": ["/bin/sleep", "30"], "children": 1, "stopSignal": "10"},
                    {"name": "c", "kind": "exec", "command": ["/bin/sleep", "30"], "children": 1, "stopSignal": "SIGRTMIN+3"},
                    {"name": "d", "kind": "exec", "command": ["/bin/sleep", "30"], "children": 1, "stopSignal": "rtmax-2"},
                    {"name": "e", "kind": "exec", "command": ["/bin/sleep", "30"], "children": 1, "stopSignal": "RTMIN"}]}]}
                """));
        assertEquals(2, PoolRunner.childSpec(spec.pools().get(0).groups().get(0)).stopSignal(), "README: a name or a number");
        assertEquals(10, PoolRunner.childSpec(spec.pools().get(0).groups().get(1)).stopSignal());
        // systemd's KillSignal= style (before: "unknown signal"); glibc's SIGRTMIN is 34, as kill -l prints it
        assertEquals(37, PoolRunner.childSpec(spec.pools().get(0).groups().get(2)).stopSignal());
        assertEquals(62, PoolRunner.childSpec(spec.pools().get(0).groups().get(3)).stopSignal());
        assertEquals(34, PoolRunner.childSpec(spec.pools().get(0).groups().get(4)).stopSignal());

        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("huge.json", """
                {"pools": [{"id": "p1", "groups": [
                    {"name": "a", "kind": "exec", "command": ["/bin/sleep", "30"], "children": 1, "stopSignal": "99999999999"},
                    {"name": "b", "kind": "exec", "command": ["/bin/sleep", "30"], "children": 1, "stopSignal": 99},
                    {"name": "c", "kind": "exec", "command": ["/bin/sleep", "30"], "children": 1, "stopSignal": 1.5},
                    {"name": "d", "kind": "exec", "command": ["/bin/sleep", "30"], "children": 1, "stopSignal": "STOP"},
                    {"name": "e", "kind": "exec", "command": ["/bin/sleep", "30"], "children": 1, "stopSignal": 19},
                    {"name": "f", "kind": "exec", "command": ["/bin/sleep", "30"], "children": 1, "stopSignal": "RTMIN+31"},
                    {"name": "g", "kind": "exec", "command": ["/bin/sleep", "30"], "children": 1, "stopSignal": "RTMAX+1"}]}]}
                """)));
        // SIGSTOP never ends a child: before, the close waited out window and grace, then diagnosed the child it had
        // stopped itself as "stopped: find who stopped it (a debugger or strace attached?)"
        String stop = " is SIGSTOP: it pauses a process and never ends it; use one the program exits on (TERM, INT, QUIT;"
                + " KILL ends it at once)";
        assertEquals(List.of(
                "pools[0].groups[0].stopSignal: unknown signal '99999999999' (use a name like TERM or a number)",
                "pools[0].groups[1].stopSignal: unknown signal '99' (use a name like TERM or a number)",
                // before: "must be a non-empty string", though a number is accepted
                "pools[0].groups[2].stopSignal: '1.5' is not a whole number: write a name or a number such as 15",
                "pools[0].groups[3].stopSignal: 'STOP'" + stop,
                "pools[0].groups[4].stopSignal: '19'" + stop,
                "pools[0].groups[5].stopSignal: unknown signal 'RTMIN+31' (use a name like TERM or a number)",
                "pools[0].groups[6].stopSignal: unknown signal 'RTMAX+1' (use a name like TERM or a number)"),
                e.problems().stream().map(SpecProblem::toString).toList());
    }

    /**
     * A pool id the Pool API refuses (a control character) is refused by the spec, nothing started: before, the spec was
     * accepted and the run's start of that pool failed, exit 1, with the raw tab in its line.
     */
    @Test
    void aPoolIdWithAControlCharacterIsAProblemNamingTheFieldBeforeAnythingStarts() throws IOException {
        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("tab.json", """
                {"pools": [{"id": "tab\\there", "groups": [{"name": "a", "kind": "c", "children": 1}]}]}
                """)));
        assertEquals(List.of("pools[0].id: 'tab\\u0009here' must be non-blank printable text (no control characters)"),
                e.problems().stream().map(SpecProblem::toString).toList());
    }

    @Test
    void aFieldWrittenTwiceIsAProblemNamingItNotASilentLastOneWins() throws IOException {
        SpecInvalidException json = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("twice.json", """
                {"cycles": 1,
                 "pools": [{"id": "p1", "groups": [{"name": "a", "kind": "c", "children": 1}]}],
                 "cycles": 5}
                """)));
        assertEquals(List.of("line 3 column 12: not valid JSON: field 'cycles' is written twice (only one may be)"),
                json.problems().stream().map(SpecProblem::toString).toList());
        SpecInvalidException yaml = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("twice.yaml", """
                pools:
                  - id: p1
                    groups:
                      - {name: a, kind: c, children: 1, children: 9}
                """)));
        assertEquals(1, yaml.problems().size(), yaml.problems().toString());
        assertTrue(yaml.problems().get(0).toString().endsWith("not valid YAML: field 'children' is written twice (only one may be)"),
                yaml.problems().toString());
    }

    @Test
    void malformedJsonNamesTheLine() throws IOException {
        SpecInvalidException e = assertThrows(SpecInvalidException.class,
                () -> SpecReader.read(write("broken.json", "{\n  \"pools\": [\n")));
        assertTrue(e.problems().get(0).path().startsWith("line "), e.getMessage());
    }

    @Test
    void aParserMessageIsOneLineWithoutTheParsersInternals() throws IOException {
        for (String[] c : new String[][] {
                {"broken.json", "{\n  \"pools\": [\n", "line 3 column 1: not valid JSON: Unexpected end-of-input: expected close"
                        + " marker for Array (start marker at line 2, column 12)"},
                {"broken.yaml", "pools: [\n", "line 1 column 9: not valid YAML: while parsing a flow node; expected the node"
                        + " content, but found '<stream end>'"}}) {
            SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write(c[0], c[1])));
            assertEquals(1, e.problems().size(), e.getMessage());
            assertEquals(c[2], e.problems().get(0).toString(), c[0]);
        }
    }

    @Test
    void aMissingFileIsOneClearProblem() {
        SpecInvalidException e = assertThrows(SpecInvalidException.class,
                () -> SpecReader.read(dir.resolve("nope.json")));
        assertEquals("$: no such file", e.problems().get(0).toString());
    }

    @Test
    void aDirectoryGivenAsTheSpecIsSaidToBeADirectory() {
        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(dir));
        assertTrue(e.problems().get(0).message().startsWith("is a directory, not a spec file"), e.getMessage());
    }

    @Test
    void aRelativeJournalDirResolvesAgainstTheSpecFolder() throws IOException {
        Path sub = Files.createDirectories(dir.resolve("specs"));
        Path spec = sub.resolve("s.json");
        Files.writeString(spec, "{\"journalDir\": \"j/x\", \"pools\": [{\"groups\": [{\"name\": \"g\", \"kind\": \"c\","
                + " \"children\": 1}]}]}");
        assertEquals(sub.resolve("j/x").toString(), SpecReader.read(spec).journalDir());
    }

    /** The gaps a new user found: each is in the one list, with every other mistake, before anything starts. */
    @Test
    void limitsHandlersJournalDirEnvTypesAndHandlerOnExecAreAllInTheOneList() throws IOException {
        Path file = write("in-the-way", "a file where the journal directory should go");
        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("gaps.json", """
                {"journalDir": "FILE/journal", "cycles": 0,
                 "pools": [{"groups": [
                    {"name": "many", "kind": "c", "children": 100000},
                    {"name": "j", "kind": "java", "children": 1, "handler": "com.example.NoSuchHandler"},
                    {"name": "s", "kind": "java", "children": 1, "handler": "java.lang.String"},
                    {"name": "e", "kind": "exec", "command": ["/bin/sleep", "5"], "children": 1,
                     "handler": "dev.vigil.child.demo.DemoHandler", "env": {"N": 200, "OBJ": {"a": 1}, "OK": "x"}}]}]}
                """.replace("FILE", file.toString()))));
        List<String> got = e.problems().stream().map(SpecProblem::toString).toList();
        List<String> expected = List.of(
                "journalDir: '" + file.resolve("journal") + "' cannot be created: '" + file + "' is a file",
                "cycles: must be >= 1",
                "pools[0].groups[1].handler: class 'com.example.NoSuchHandler' not found on the child class path",
                "pools[0].groups[2].handler: class 'java.lang.String' cannot be a handler: not a dev.vigil.child.ChildHandler:"
                        + " handler=java.lang.String",
                "pools[0].groups[3].env.N: must be a string (write \"200\")",
                "pools[0].groups[3].env.OBJ: must be a string",
                "pools[0].groups[3].handler: only for kind java or python");
        for (String line : expected) {
            assertTrue(got.contains(line), "missing problem '" + line + "' in " + got);
        }
        assertTrue(got.stream().anyMatch(l -> l.startsWith("pools[0].groups[0].children: 100000 is too many: 100003 children"
                + " in all need about")), got.toString());
        assertEquals(expected.size() + 1, got.size(), "unexpected extra problems: " + got);
    }
    @Test
    void aPoolsExitPolicyIsReadWithItsRestartLimitsAndDefaultsToKeep() throws IOException {
        RunSpec spec = SpecReader.read(write("policy.yaml", """
                pools:
                  - id: a
                    onChildExit: {policy: restart, maxRestarts: 2, periodMs: 60000, backoffMs: 50, maxBackoffMs: 400}
                    groups: [{name: g, kind: c, children: 1}]
                  - id: b
                    onChildExit: {policy: fail-pool}
                    groups: [{name: g, kind: c, children: 1}]
                  - id: c
                    groups: [{name: g, kind: c, children: 1}]
                """));
        assertEquals(dev.vigil.pool.ExitPolicy.restart(2, java.time.Duration.ofSeconds(60), java.time.Duration.ofMillis(50),
                java.time.Duration.ofMillis(400)), spec.pools().get(0).onChildExit());
        assertEquals(dev.vigil.pool.ExitPolicy.failPool(), spec.pools().get(1).onChildExit());
        assertEquals(dev.vigil.pool.ExitPolicy.keep(), spec.pools().get(2).onChildExit());
    }

    @Test
    void exitPolicyMistakesAreNamedByTheirPath() throws IOException {
        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("policy.json", """
                {"pools": [
                  {"onChildExit": {"policy": "resurrect"}, "groups": [{"name": "g", "kind": "c", "children": 1}]},
                  {"onChildExit": {"policy": "fail-pool", "maxRestarts": 2}, "groups": [{"name": "g", "kind": "c", "children": 1}]},
                  {"onChildExit": {"policy": "restart", "maxRestarts": -1, "periodMs": 0, "backoffMs": 500, "maxBackoffMs": 100,
                                   "retries": 3}, "groups": [{"name": "g", "kind": "c", "children": 1}]},
                  {"onChildExit": "restart", "groups": [{"name": "g", "kind": "c", "children": 1}]}]}
                """)));
        List<String> got = e.problems().stream().map(SpecProblem::toString).toList();
        List<String> expected = List.of(
                "pools[0].onChildExit.policy: unknown value 'resurrect', expected one of [fail-pool, keep, restart]",
                "pools[1].onChildExit.maxRestarts: only for policy restart (policy is fail-pool)",
                "pools[2].onChildExit.maxRestarts: must be >= 0",
                "pools[2].onChildExit.periodMs: must be >= 1",
                "pools[2].onChildExit.maxBackoffMs: must be >= backoffMs (500)",
                "pools[2].onChildExit.retries: unknown field",
                "pools[3].onChildExit: must be an object");
        for (String line : expected) {
            assertTrue(got.contains(line), "missing problem '" + line + "' in " + got);
        }
        assertEquals(expected.size(), got.size(), "unexpected extra problems: " + got);
    }

    /**
     * Times past a year overflowed the monotonic clock's nanoseconds: the spec was accepted and the run failed later
     * with "long overflow" (windowMs: every close failed unjournaled; periodMs: the pool's start). Now each is a
     * problem with its path, before anything starts; so is a parallelCloses the close settings refuse.
     */
    @Test
    void timesPastAYearAndTooManyParallelClosesAreProblemsNamingTheirFields() throws IOException {
        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("huge.json", """
                {"close": {"windowMs": 9223372036854775807, "hardCapMs": 31536000001, "fixedBudgetMs": 9223372036854775807,
                           "graceMs": 9223372036854775807, "parallelCloses": 2147483647},
                 "pools": [{"workload": {"controlTimeoutMs": 9223372036854775807},
                            "onChildExit": {"policy": "restart", "periodMs": 9223372036854775807,
                                            "backoffMs": 9223372036854775807, "maxBackoffMs": 9223372036854775807},
                            "groups": [{"name": "g", "kind": "c", "children": 1}]}]}
                """)));
        List<String> got = e.problems().stream().map(SpecProblem::toString).toList();
        String max = "must be <= 31536000000 (365 days)";
        List<String> expected = List.of(
                "close.windowMs: " + max, "close.hardCapMs: " + max, "close.fixedBudgetMs: " + max, "close.graceMs: " + max,
                "close.parallelCloses: must be <= 64",
                "pools[0].workload.controlTimeoutMs: " + max,
                "pools[0].onChildExit.periodMs: " + max, "pools[0].onChildExit.backoffMs: " + max,
                "pools[0].onChildExit.maxBackoffMs: " + max);
        assertEquals(expected, got);
        RunSpec atTheBound = SpecReader.read(write("year.json", """
                {"close": {"windowMs": 31536000000, "parallelCloses": 64},
                 "pools": [{"groups": [{"name": "g", "kind": "c", "children": 1}]}]}
                """));
        assertEquals(31_536_000_000L, atTheBound.close().windowMs());
    }

    /**
     * A 300-byte pool id or a 400-byte group name (200 x 'é') was accepted and failed the pool's start
     * ("child log dir=... cannot be created: File name too long", exit 1); now a problem with its path, exit 2, nothing
     * started. Unicode within the bound is fine.
     */
    @Test
    void aPoolIdOrGroupNameTooLongForALogFileNameIsAProblemAndUnicodeWithinTheBoundIsFine() throws IOException {
        String longId = "p".repeat(300);
        String longGroup = "\u00e9".repeat(200);
        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("long.json",
                "{\"pools\": [{\"id\": \"" + longId + "\", \"groups\": [{\"name\": \"" + longGroup
                        + "\", \"kind\": \"c\", \"children\": 1}]}]}")));
        List<String> got = e.problems().stream().map(SpecProblem::toString).toList();
        assertEquals(List.of(
                "pools[0].id: 300 bytes is too long: at most 200 bytes of UTF-8 (it names the children's log files)",
                "pools[0].groups[0].name: 400 bytes is too long: at most 200 bytes of UTF-8 (it names the children's log files)"),
                got);
        RunSpec ok = SpecReader.read(write("unicode.json", "{\"pools\": [{\"id\": \"\u30e9\u30c3\u30af\", \"groups\": "
                + "[{\"name\": \"" + "\u00e9".repeat(100) + "\", \"kind\": \"c\", \"children\": 1}]}]}"));
        assertEquals("\u30e9\u30c3\u30af", ok.pools().get(0).id());
    }

    /**
     * A pool's start settings (Pool.Builder.startTimeout, bootingAtOnce) from the spec: its values, and the defaults
     * the Java API has when the spec says nothing (0 booting at once: no bound).
     */
    @Test
    void aPoolsStartTimeoutAndBootingBoundAreReadAndDefaultToTheJavaApis() throws IOException {
        RunSpec spec = SpecReader.read(write("start.yaml", """
                pools:
                  - id: a
                    start: {timeoutMs: 120000, bootingAtOnce: 4}
                    groups: [{name: jvms, kind: java, children: 2}]
                  - id: b
                    start: {bootingAtOnce: 0}
                    groups: [{name: py, kind: python, children: 1}, {name: web, kind: exec, command: [sleep, "1"], children: 1}]
                  - id: c
                    start: {timeoutMs: 1}
                    groups: [{name: g, kind: mailbox-exec, command: [sleep, "1"], children: 1}]
                  - id: d
                    groups: [{name: g, kind: c, children: 1}]
                """));
        assertEquals(new RunSpec.Start(120_000, 4), spec.pools().get(0).start());
        assertEquals(new RunSpec.Start(30_000, 0), spec.pools().get(1).start());
        assertEquals(new RunSpec.Start(1, dev.vigil.pool.Pool.BOOTING_AT_ONCE), spec.pools().get(2).start());
        assertEquals(new RunSpec.Start(dev.vigil.pool.Pool.DEFAULT_START_TIMEOUT.toMillis(), dev.vigil.pool.Pool.BOOTING_AT_ONCE),
                spec.pools().get(3).start());
        assertEquals(java.time.Duration.ofSeconds(240), PoolRunner.startBound(spec), "vigil run: twice the longest, past 120 s");
        assertEquals(PoolRunner.START_BOUND, PoolRunner.startBound(new RunSpec("j", "sticky", 1, null, List.of(spec.pools().get(3)))));
    }

    /** Each bad start setting is one line naming its field: negative, zero timeout, too large, wrong type, not used. */
    @Test
    void startSettingMistakesAreNamedByTheirPath() throws IOException {
        String java = "\"groups\": [{\"name\": \"j\", \"kind\": \"java\", \"children\": 1}]";
        SpecInvalidException e = assertThrows(SpecInvalidException.class, () -> SpecReader.read(write("start.json", """
                {"pools": [
                  {"id": "p0", "start": {"timeoutMs": 0, "bootingAtOnce": -1}, %1$s},
                  {"id": "p1", "start": {"timeoutMs": -5, "bootingAtOnce": 2147483648}, %1$s},
                  {"id": "p2", "start": {"timeoutMs": 31536000001, "bootingAtOnce": 1.5}, %1$s},
                  {"id": "p3", "start": {"timeoutMs": "30s", "bootingAtOnce": true, "timeout": 5}, %1$s},
                  {"id": "p4", "start": 30000, %1$s},
                  {"id": "p5", "start": {"timeoutMs": 500, "bootingAtOnce": 2},
                   "groups": [{"name": "web", "kind": "exec", "command": ["sleep", "1"], "children": 1}]},
                  {"id": "p6", "start": {"timeoutMs": 500, "bootingAtOnce": 2},
                   "groups": [{"name": "chips", "kind": "c", "children": 1}]}]}
                """.formatted(java))));
        List<String> got = e.problems().stream().map(SpecProblem::toString).toList();
        assertEquals(List.of(
                "pools[0].start.timeoutMs: must be >= 1",
                "pools[0].start.bootingAtOnce: must be >= 0",
                "pools[1].start.timeoutMs: must be >= 1",
                "pools[1].start.bootingAtOnce: too large",
                "pools[2].start.timeoutMs: must be <= 31536000000 (365 days)",
                "pools[2].start.bootingAtOnce: must be an integer",
                "pools[3].start.timeoutMs: must be an integer",
                "pools[3].start.bootingAtOnce: must be an integer",
                "pools[3].start.timeout: unknown field",
                "pools[4].start: must be an object",
                "pools[5].start.timeoutMs: not used: every group of this pool is kind exec, whose readiness nothing waits for",
                "pools[5].start.bootingAtOnce: not used: it bounds java and python children, and this pool has none",
                "pools[6].start.bootingAtOnce: not used: it bounds java and python children, and this pool has none"), got);
    }
}
