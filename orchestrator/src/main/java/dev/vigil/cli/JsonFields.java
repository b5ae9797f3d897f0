package dev.vigil.cli;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import dev.vigil.journal.MonotonicClock;

/**
 * A JSON object being validated: typed field readers that record each mistake as a {@link SpecProblem} at its path
 * ({@code pools[0].groups[1].children: must be >= 1}) instead of throwing, so that every mistake is reported at once.
 * The spec file ({@link SpecReader}) and {@code vigil session}'s requests ({@link PoolSession}) are read with it.
 */
final class JsonFields {
    private final JsonNode node;
    private final String path;
    private final Set<String> seen = new HashSet<>();
    private final List<SpecProblem> problems;

    private JsonFields(JsonNode node, String path, List<SpecProblem> problems) {
        this.node = node;
        this.path = path;
        this.problems = problems;
    }

    /**
     * {@code node} as an object whose fields are read at {@code path} ({@code $}: the top, whose fields are named
     * bare); null, with "must be an object" recorded, when it is not one.
     */
    static JsonFields object(JsonNode node, String path, List<SpecProblem> problems) {
        if (node == null || node.isMissingNode() || !node.isObject()) {
            problems.add(new SpecProblem(path, "must be an object"));
            return null;
        }
        return new JsonFields(node, path, problems);
    }

    void problem(String at, String message) {
        problems.add(new SpecProblem(at, message));
    }

    String path(String field) {
        return path.equals("$") ? field : path + "." + field;
    }

    JsonNode node(String field) {
        seen.add(field);
        JsonNode n = node.get(field);
        return n == null || n.isNull() ? null : n;
    }

    JsonNode required(String field) {
        JsonNode n = node(field);
        if (n == null) {
            problem(path(field), "required");
        }
        return n;
    }

    String string(String field, String dflt) {
        JsonNode n = node(field);
        if (n == null) {
            return dflt;
        }
        if (!n.isTextual() || n.asText().isBlank()) {
            problem(path(field), "must be a non-empty string");
            return dflt;
        }
        return n.asText();
    }

    /**
     * A pool id or group name: a non-empty string that fits a child log's file name (at most
     * {@link dev.vigil.spawn.ChildLog#MAX_NAME_BYTES} bytes of UTF-8; a longer one failed the pool's start with
     * "File name too long").
     */
    String fileNamePart(String field, String dflt) {
        String v = string(field, dflt);
        String unnameable = v == null ? null : SpecReader.whyNotAFileName(v);
        if (unnameable != null) {
            problem(path(field), unnameable);
            return dflt == null ? v : dflt;
        }
        int bytes = v == null ? 0 : v.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (bytes > dev.vigil.spawn.ChildLog.MAX_NAME_BYTES) {
            problem(path(field), bytes + " bytes is too long: at most " + dev.vigil.spawn.ChildLog.MAX_NAME_BYTES
                    + " bytes of UTF-8 (it names the children's log files)");
            return dflt == null ? v : dflt;
        }
        return v;
    }

    /** A string, or an integer written as a JSON number, as its text (a signal: {@code "TERM"} or {@code 15}). */
    String stringOrInteger(String field, String dflt) {
        JsonNode n = node(field);
        if (n != null && n.isNumber() && !n.isIntegralNumber()) { // 1.5: "must be a non-empty string" misled
            problem(path(field), "'" + written(n) + "' is not a whole number: write a name or a number such as 15");
            return dflt;
        }
        return n != null && n.isIntegralNumber() ? n.asText() : string(field, dflt);
    }

    String requiredString(String field) {
        return required(field) == null ? null : string(field, null);
    }

    String oneOf(String field, Set<String> allowed, String dflt) {
        String v = string(field, dflt);
        if (v != null && !allowed.contains(v)) {
            problem(path(field), "unknown value '" + v + "', expected one of " + new java.util.TreeSet<>(allowed));
            return dflt;
        }
        return v;
    }

    String requiredOneOf(String field, Set<String> allowed) {
        return required(field) == null ? null : oneOf(field, allowed, null);
    }

    long longAtLeast(String field, long min, long dflt) {
        JsonNode n = node(field);
        if (n == null) {
            return dflt;
        }
        if (n.isIntegralNumber() && !n.canConvertToLong()) {
            problem(path(field), "too large");
            return dflt;
        }
        if (!n.isIntegralNumber()) {
            problem(path(field), notAnInteger(n));
            return dflt;
        }
        if (n.asLong() < min) {
            problem(path(field), "must be >= " + min);
            return dflt;
        }
        return n.asLong();
    }

    /**
     * "must be an integer", with the digits to write when {@code n} is a whole number in a fraction or exponent: JSON
     * reads {@code 1e9} and {@code 4.0} as floating point, which the field refused with no hint that its value was fine.
     */
    private static String notAnInteger(JsonNode n) {
        java.math.BigDecimal exact = n instanceof JsonTree.WrittenNumber w ? w.exact()
                : n.isNumber() && Double.isFinite(n.asDouble()) ? n.decimalValue() : null;
        if (exact == null || exact.signum() != 0 && exact.stripTrailingZeros().scale() > 0) {
            return "must be an integer";
        }
        if (exact.abs().compareTo(java.math.BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            return "too large: " + written(n); // 1e300 whole, but its 301 digits in the line helped nobody
        }
        return "must be an integer written in digits: " + exact.toBigInteger() + ", not " + written(n);
    }

    /**
     * A value as the user wrote it ({@code 1e300}, not {@code 1.0E300}), cut to its first 40 characters when longer
     * (a number of a thousand digits is one short line).
     */
    static String written(JsonNode n) {
        return shortened(n.asText());
    }

    /** {@code text}, cut to its first 40 characters when longer, with how long it was. */
    static String shortened(String text) {
        return text.length() <= 40 ? text : text.substring(0, 40) + "... (" + text.length() + " characters)";
    }

    /** A time in milliseconds: at least {@code min}, at most {@link MonotonicClock#MAX_SPAN} (longer overflows). */
    long millisAtLeast(String field, long min, long dflt) {
        long ms = longAtLeast(field, min, dflt);
        if (ms > MonotonicClock.MAX_SPAN.toMillis()) {
            problem(path(field), "must be <= " + MonotonicClock.MAX_SPAN.toMillis() + " (" + MonotonicClock.MAX_SPAN.toDays()
                    + " days)");
            return dflt;
        }
        return ms;
    }

    int intAtLeast(String field, int min, int dflt) {
        JsonNode n = node(field);
        if (n != null && n.isIntegralNumber() && !n.canConvertToInt()) {
            problem(path(field), "too large");
            return dflt;
        }
        return (int) longAtLeast(field, min, dflt);
    }

    int requiredIntAtLeast(String field, int min) {
        return required(field) == null ? 0 : intAtLeast(field, min, 0);
    }

    boolean bool(String field, boolean dflt) {
        JsonNode n = node(field);
        if (n == null) {
            return dflt;
        }
        if (!n.isBoolean()) {
            problem(path(field), "must be true or false");
            return dflt;
        }
        return n.asBoolean();
    }

    List<String> stringList(String field) {
        JsonNode n = node(field);
        if (n == null) {
            return null;
        }
        if (n.isTextual()) {
            return List.of(n.asText().trim().split("\\s+"));
        }
        if (!n.isArray()) {
            problem(path(field), "must be an array of strings (or one string)");
            return null;
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n.size(); i++) {
            if (!n.get(i).isTextual()) {
                problem(path(field) + "[" + i + "]", "must be a string");
            } else {
                out.add(n.get(i).asText());
            }
        }
        return out;
    }

    Map<String, String> stringMap(String field) {
        JsonNode n = node(field);
        Map<String, String> out = new LinkedHashMap<>();
        if (n == null) {
            return out;
        }
        if (!n.isObject()) {
            problem(path(field), "must be an object of string values");
            return out;
        }
        for (Map.Entry<String, JsonNode> e : n.properties()) {
            if (!e.getValue().isTextual()) {
                problem(path(field) + "." + e.getKey(), e.getValue().isValueNode()
                        ? "must be a string (write \"" + e.getValue().asText() + "\")" : "must be a string");
            } else {
                out.put(e.getKey(), e.getValue().asText());
            }
        }
        return out;
    }

    void rejectUnknown() {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!seen.contains(f)) {
                problem(path(f), "unknown field");
            }
        }
    }
}
