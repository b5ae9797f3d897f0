package dev.vigil.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vigil session}'s requests over a real pool of two C children: a request with a wrong field is refused naming
 * it, and nothing is sent. Before, {@code "argument": 99999999999999999999999} was cut to its low 64 bits and sent
 * (the child echoed 200376420520689663), a missing opcode or a text index read as 0, a negative timeout waited
 * "-5 ms", and a line that was not JSON answered with Jackson's multi-line message.
 */
@Timeout(60)
class PoolSessionRequestTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void aRequestWithAWrongFieldIsRefusedNamingItAndAGoodOneIsAnswered() throws Exception {
        RunSpec spec = SpecReader.validate("session.json", JSON.readTree("""
                {"journalDir": "%s", "pools": [{"id": "p", "groups": [{"name": "c", "kind": "c", "children": 2}]}]}
                """.formatted(tmp.resolve("journal"))));
        List<String> requests = List.of(
                "{\"op\":\"control\",\"group\":\"c\",\"index\":1,\"opcode\":1,\"argument\":99999999999999999999999}",
                "{\"op\":\"control\",\"group\":\"c\",\"index\":\"one\",\"argument\":5}",
                "{\"op\":\"inside\",\"group\":\"c\",\"index\":0,\"timeoutMs\":-5}",
                "{\"op\":\"gate\",\"group\":\"c\",\"index\":0,\"valu\":1}",
                "{\"op\":\"frobnicate\",\"group\":\"c\"}",
                "[1,2]",
                "not json",
                "{\"op\":\"control\",\"group\":\"c\",\"index\":1,\"opcode\":1,\"argument\":-7,\"timeoutMs\":5000}",
                "{\"op\":\"close\"}");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit;
        try (PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            exit = new PoolSession(spec, ps, ps).run(new BufferedReader(new StringReader(String.join("\n", requests) + "\n")));
        }
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("{")).toList();
        assertEquals(requests.size() + 1, lines.size(), String.join("\n", lines)); // ready, then one answer each
        assertEquals(0, exit, String.join("\n", lines));
        assertRefused(lines.get(1), "argument: too large");
        assertRefused(lines.get(2), "index: must be an integer; opcode: required");
        assertRefused(lines.get(3), "timeoutMs: must be >= 1");
        assertRefused(lines.get(4), "valu: unknown field");
        assertRefused(lines.get(5), "op: unknown value 'frobnicate', expected one of [close, control, gate, inside, send, task]");
        assertRefused(lines.get(6), "a request is a JSON object such as");
        assertRefused(lines.get(7), "the request is not JSON: Unrecognized token 'not'");
        JsonNode answered = JSON.readTree(lines.get(8));
        assertTrue(answered.path("ok").asBoolean(), lines.get(8));
        assertEquals(-7, answered.path("value").asLong(), lines.get(8));
        assertTrue(JSON.readTree(lines.get(9)).path("clean").asBoolean(), lines.get(9));
    }

    /**
     * {@code inside} and {@code gate} of a plain executable are refused as {@code control} is, naming the child: they
     * answered a NullPointerException's text ("Cannot invoke ... because \"mailbox\" is null").
     */
    @Test
    void aMailboxRequestToAPlainExecutableIsRefusedNamingIt() throws Exception {
        RunSpec spec = SpecReader.validate("session.json", JSON.readTree("""
                {"journalDir": "%s", "pools": [{"id": "p", "groups": [{"name": "web", "kind": "exec", "command": "sleep 600",
                    "children": 1}]}]}
                """.formatted(tmp.resolve("journal"))));
        List<String> requests = List.of(
                "{\"op\":\"inside\",\"group\":\"web\",\"index\":0,\"timeoutMs\":300}",
                "{\"op\":\"gate\",\"group\":\"web\",\"index\":0}",
                "{\"op\":\"control\",\"group\":\"web\",\"index\":0,\"opcode\":1,\"argument\":5}");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            new PoolSession(spec, ps, ps).run(new BufferedReader(new StringReader(String.join("\n", requests) + "\n")));
        }
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("{")).toList();
        for (int i = 1; i <= requests.size(); i++) {
            assertRefused(lines.get(i), "pool=p group=web child=0 kind=EXEC has no mailbox (plain executables take signals only)");
        }
    }

    private static void assertRefused(String line, String error) throws Exception {
        JsonNode answer = JSON.readTree(line);
        assertEquals(false, answer.path("ok").asBoolean(true), line);
        assertTrue(answer.path("error").asText().contains(error), line);
        assertTrue(!answer.path("error").asText().contains("\n"), "one line: " + line);
    }
}
