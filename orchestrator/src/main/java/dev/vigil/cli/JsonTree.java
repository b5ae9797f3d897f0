package dev.vigil.cli;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One JSON (or YAML) value read into Jackson's tree by the streaming parser alone: the tree {@code ObjectMapper.readTree}
 * gives, without the ObjectMapper, whose set-up (its serializer and deserializer factories, type factory, annotation
 * introspection) took ~100-150 ms of the main thread on the way to a run's first child (bin/vigil-bench start; a spec
 * needs none of it). A field written twice in one object is refused at its second value, as the ObjectMapper refused it
 * with FAIL_ON_READING_DUP_TREE_KEY. Whole numbers become the nodes the ObjectMapper made: int, long or big integer by
 * size; a number with a fraction or an exponent is a double that keeps its text as written ({@link WrittenNumber}). Empty input is a missing node. A YAML tag
 * ({@code !!java.io.File a}, {@code !foo}) is refused naming its field: a spec takes plain values, and a tag that
 * names a type is what a YAML loader would instantiate (the parser used to give the plain string, silently).
 */
final class JsonTree {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private JsonTree() {
    }

    /** The first value {@code p} reads (what follows it is not read), or a missing node when there is none. */
    static JsonNode read(JsonParser p) throws IOException {
        JsonToken t = p.nextToken();
        return t == null ? MissingNode.getInstance() : value(p, t, "$");
    }

    /** A YAML tag on the value at {@code path} (a spec path such as {@code pools[0].id}, {@code $} for the whole). */
    static final class TagRefused extends JsonParseException {
        private static final long serialVersionUID = 1L;
        final String path;

        TagRefused(JsonParser p, String path, String tag) {
            super(p, "the YAML tag " + tag + " is not allowed (line " + p.currentTokenLocation().getLineNr()
                    + ", column " + p.currentTokenLocation().getColumnNr() + "): a spec takes plain values, write the value"
                    + " without the tag", p.currentTokenLocation());
            this.path = path;
        }
    }

    /** The tag as written ({@code !!java.io.File}, {@code !local}), from the parser's resolved form. */
    private static String tagAsWritten(String typeId) {
        String core = "tag:yaml.org,2002:";
        return typeId.startsWith(core) ? "!!" + typeId.substring(core.length()) : "!" + typeId;
    }

    private static JsonNode value(JsonParser p, JsonToken t, String path) throws IOException {
        Object tag = p.canReadTypeId() ? p.getTypeId() : null;
        if (tag != null) {
            throw new TagRefused(p, path, tagAsWritten(tag.toString()));
        }
        switch (t) {
            case START_OBJECT -> {
                ObjectNode o = NODES.objectNode();
                for (JsonToken k = p.nextToken(); k == JsonToken.FIELD_NAME; k = p.nextToken()) {
                    String name = p.currentName();
                    if (o.replace(name, value(p, p.nextToken(), path.equals("$") ? name : path + "." + name)) != null) {
                        throw new JsonParseException(p, "field '" + name + "' is written twice (only one may be)",
                                p.currentTokenLocation());
                    }
                }
                return o;
            }
            case START_ARRAY -> {
                com.fasterxml.jackson.databind.node.ArrayNode a = NODES.arrayNode();
                for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
                    a.add(value(p, e, path + "[" + a.size() + "]"));
                }
                return a;
            }
            case VALUE_STRING -> {
                return NODES.textNode(p.getText());
            }
            case VALUE_NUMBER_INT -> {
                return switch (p.getNumberType()) {
                    case INT -> NODES.numberNode(p.getIntValue());
                    case LONG -> NODES.numberNode(p.getLongValue());
                    default -> NODES.numberNode(p.getBigIntegerValue());
                };
            }
            case VALUE_NUMBER_FLOAT -> {
                return new WrittenNumber(p.getDoubleValue(), p.getText());
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return NODES.booleanNode(t == JsonToken.VALUE_TRUE);
            }
            case VALUE_NULL -> {
                return NODES.nullNode();
            }
            case VALUE_EMBEDDED_OBJECT -> { // YAML's !!binary
                Object embedded = p.getEmbeddedObject();
                return embedded == null ? NODES.nullNode()
                        : embedded instanceof byte[] bytes ? NODES.binaryNode(bytes) : NODES.pojoNode(embedded);
            }
            default -> throw new JsonParseException(p, "unexpected " + t, p.currentTokenLocation());
        }
    }

    /**
     * A number written with a fraction or an exponent: its value as a double, and its text as the user wrote it
     * ({@code asText}). An error line quotes {@code 1e300} so, not as the double's {@code 1.0E300} nor as the 301 digits of
     * its value.
     */
    static final class WrittenNumber extends com.fasterxml.jackson.databind.node.DoubleNode {
        private static final long serialVersionUID = 1L;
        private final String written;

        WrittenNumber(double value, String written) {
            super(value);
            this.written = written;
        }

        @Override
        public String asText() {
            return written;
        }

        /** The exact value written, or null when the text is not a decimal number ({@code .inf}, {@code .nan}). */
        java.math.BigDecimal exact() {
            try {
                return new java.math.BigDecimal(written.replace("_", ""));
            } catch (NumberFormatException e) {
                return null;
            }
        }
    }
}
