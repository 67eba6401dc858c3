package kjoin.driver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough JSON for the portable format: a strict parser (objects become {@link LinkedHashMap}, arrays
 * {@link ArrayList}, integers {@link Long}, other numbers {@link Double}) and a writer whose string escapes
 * match Python's {@code json.dumps} defaults, so answer lines look like the oracle's.
 */
final class Json {

    /** Malformed JSON text; the message says where. */
    static final class ParseError extends Exception {
        private static final long serialVersionUID = 1L;

        ParseError(final String message) {
            super(message);
        }
    }

    private final String text;
    private int pos;

    private Json(final String text) {
        this.text = text;
    }

    /** Parses one complete JSON value (surrounding whitespace allowed). */
    static Object parse(final String text) throws ParseError {
        final Json parser = new Json(text);
        parser.skipSpace();
        final Object value = parser.value();
        parser.skipSpace();
        if (parser.pos != text.length()) {
            throw parser.error("unexpected text after the JSON value");
        }
        return value;
    }

    private ParseError error(final String what) {
        return new ParseError(what + " at column " + (pos + 1));
    }

    private void skipSpace() {
        while (pos < text.length()) {
            final char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private Object value() throws ParseError {
        if (pos >= text.length()) {
            throw error("unexpected end of input");
        }
        final char c = text.charAt(pos);
        switch (c) {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return number();
                }
                throw error("unexpected character '" + c + "'");
        }
    }

    private Object literal(final String word, final Object result) throws ParseError {
        if (!text.startsWith(word, pos)) {
            throw error("expected " + word);
        }
        pos += word.length();
        return result;
    }

    private Map<String, Object> object() throws ParseError {
        final Map<String, Object> result = new LinkedHashMap<>();
        pos++;
        skipSpace();
        if (peek() == '}') {
            pos++;
            return result;
        }
        while (true) {
            skipSpace();
            if (peek() != '"') {
                throw error("expected a member name");
            }
            final String name = string();
            skipSpace();
            expect(':');
            skipSpace();
            result.put(name, value());
            skipSpace();
            if (peek() == ',') {
                pos++;
            } else {
                expect('}');
                return result;
            }
        }
    }

    private List<Object> array() throws ParseError {
        final List<Object> result = new ArrayList<>();
        pos++;
        skipSpace();
        if (peek() == ']') {
            pos++;
            return result;
        }
        while (true) {
            skipSpace();
            result.add(value());
            skipSpace();
            if (peek() == ',') {
                pos++;
            } else {
                expect(']');
                return result;
            }
        }
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private void expect(final char c) throws ParseError {
        if (peek() != c) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private String string() throws ParseError {
        pos++;
        final StringBuilder out = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("unterminated string");
            }
            final char c = text.charAt(pos++);
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                throw error("control character in string");
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            final char e = peek();
            pos++;
            switch (e) {
                case '"': out.append('"'); break;
                case '\\': out.append('\\'); break;
                case '/': out.append('/'); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'n': out.append('\n'); break;
                case 'r': out.append('\r'); break;
                case 't': out.append('\t'); break;
                case 'u':
                    if (pos + 4 > text.length()) {
                        throw error("bad \\u escape");
                    }
                    try {
                        out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    } catch (final NumberFormatException ex) {
                        throw error("bad \\u escape");
                    }
                    pos += 4;
                    break;
                default:
                    pos--;
                    throw error("bad escape");
            }
        }
    }

    private Object number() throws ParseError {
        final int start = pos;
        if (peek() == '-') {
            pos++;
        }
        boolean integral = true;
        while (pos < text.length()) {
            final char c = text.charAt(pos);
            if (c >= '0' && c <= '9') {
                pos++;
            } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                integral = false;
                pos++;
            } else {
                break;
            }
        }
        final String digits = text.substring(start, pos);
        try {
            if (integral) {
                return Long.parseLong(digits);
            }
            return Double.parseDouble(digits);
        } catch (final NumberFormatException ex) {
            pos = start;
            throw error("bad number " + digits);
        }
    }

    // --- writing -------------------------------------------------------------------------------------------

    /** Appends {@code value} (String, Long/Integer, Boolean, null, List or Map) as compact JSON. */
    static void write(final StringBuilder out, final Object value) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String) {
            writeString(out, (String) value);
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof List) {
            out.append('[');
            boolean first = true;
            for (final Object item : (List<?>) value) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                write(out, item);
            }
            out.append(']');
        } else if (value instanceof Map) {
            out.append('{');
            boolean first = true;
            for (final Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                writeString(out, (String) entry.getKey());
                out.append(':');
                write(out, entry.getValue());
            }
            out.append('}');
        } else {
            throw new IllegalArgumentException("cannot write " + value.getClass() + " as JSON");
        }
    }

    /** A JSON string literal, escaped like Python's {@code json.dumps} (ensure_ascii). */
    static void writeString(final StringBuilder out, final String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                case '\b': out.append("\\b"); break;
                case '\f': out.append("\\f"); break;
                default:
                    if (c < 0x20 || c >= 0x80) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }

    static String toJson(final Object value) {
        final StringBuilder out = new StringBuilder();
        write(out, value);
        return out.toString();
    }
}
