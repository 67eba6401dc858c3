package kjoin.driver;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * JSON through Jackson, the one Jackson the Kafka release brings (the parent POM says how): scenario lines
 * read into plain values (objects become {@link java.util.LinkedHashMap}, arrays {@link java.util.ArrayList},
 * integers {@link Long}, other numbers {@link Double}; an integer beyond a long is a parse error or a
 * {@link java.math.BigInteger}, depending on the Jackson version, and refused either way), answers written as
 * compact JSON in ASCII (other characters escaped as Python's {@code json.dumps} writes
 * them by default). Only APIs of Jackson 2.10 (Kafka 2.4.1's) are used.
 */
final class Json {

    /** Malformed JSON text; the message says what and where. */
    static final class ParseError extends Exception {
        private static final long serialVersionUID = 1L;

        ParseError(final String message) {
            super(message);
        }
    }

    private static final ObjectMapper MAPPER = JsonMapper.builder()
        .enable(DeserializationFeature.USE_LONG_FOR_INTS)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
        .build();

    private Json() {
    }

    /** Parses one complete JSON value (surrounding whitespace allowed, nothing after it). */
    static Object parse(final String text) throws ParseError {
        try {
            return MAPPER.readValue(text, Object.class);
        } catch (final JsonProcessingException ex) {
            final JsonLocation at = ex.getLocation();
            final String where = at == null ? "" : " at column " + at.getColumnNr();
            throw new ParseError(firstLine(ex.getOriginalMessage()) + where);
        }
    }

    /** {@code value} (String, Number, Boolean, null, List or Map of them) as compact JSON. */
    static String toJson(final Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (final JsonProcessingException ex) {
            throw new IllegalArgumentException("cannot write " + value + " as JSON", ex);
        }
    }

    private static String firstLine(final String message) {
        final int end = message.indexOf('\n');
        return end < 0 ? message : message.substring(0, end);
    }
}
