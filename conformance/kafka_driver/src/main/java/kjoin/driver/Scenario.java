package kjoin.driver;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * One portable scenario (README "The portable interface"), validated. Fields the driver does not read
 * ({@code expected}, {@code source}, ...) are ignored.
 */
final class Scenario {

    /** A scenario line the driver cannot read; the message names the line and the field. */
    static final class BadInput extends Exception {
        private static final long serialVersionUID = 1L;

        BadInput(final String message) {
            super(message);
        }
    }

    /**
     * One input record, piped into topic {@code left} or {@code right} once the mocked wall clock reads
     * {@code wallClock} (milliseconds since the run's start).
     */
    static final class Rec {
        final boolean left;
        /** A String, a Long or null. */
        final Object key;
        final String value;
        final long ts;
        /** The record's {@code wall_clock}, or the previous record's when it has none (0 for the first). */
        final long wallClock;
        /**
         * The record's {@code commit}: a commit right after it. TopologyTestDriver commits after every record
         * anyway, so the driver reads it and has nothing more to do (README.md "Production settings").
         */
        final boolean commit;

        Rec(final boolean left, final Object key, final String value, final long ts, final long wallClock,
            final boolean commit) {
            this.left = left;
            this.key = key;
            this.value = value;
            this.ts = ts;
            this.wallClock = wallClock;
            this.commit = commit;
        }
    }

    /**
     * The scenario's {@code settings} (docs/portable-format.md "Production settings"): each 0 when absent,
     * which is how the driver ran before settings existed.
     */
    static final class Settings {
        static final List<String> NAMES = Arrays.asList("cache_max_bytes", "commit_interval_ms",
                                                        "emit_interval_ms");

        /** {@code statestore.cache.max.bytes} (and its old name {@code cache.max.bytes.buffering}). */
        final long cacheMaxBytes;
        /** {@code commit.interval.ms}; TopologyTestDriver commits after every record whatever it says. */
        final long commitIntervalMs;
        /** The internal emit interval of left/outer stream-stream joins' held results (3.0+). */
        final long emitIntervalMs;

        Settings(final long cacheMaxBytes, final long commitIntervalMs, final long emitIntervalMs) {
            this.cacheMaxBytes = cacheMaxBytes;
            this.commitIntervalMs = commitIntervalMs;
            this.emitIntervalMs = emitIntervalMs;
        }
    }

    static final List<String> JOINS = Arrays.asList("stream-stream", "stream-table", "table-table", "fk",
                                                    "stream-globaltable");
    static final List<String> VARIANTS = Arrays.asList("inner", "left", "outer");
    static final List<String> STORES = Arrays.asList("rocksdb", "memory");
    static final List<String> EXTRACTORS = Arrays.asList("colon-prefix", "pipe-suffix");
    static final List<String> OPTIMIZATIONS = Arrays.asList("none", "all");
    static final List<String> KEY_MAPPERS = Arrays.asList("key", "colon-prefix", "comma-second", "always-null");

    final String id;
    final String kafka;
    final String join;
    final String variant;
    final String stores;
    final String fkExtractor;
    /** stream-globaltable: the key mapper (docs/portable-format.md {@code key_mapper}). */
    final String keyMapper;
    final boolean intended;
    /** True when the scenario has a {@code window} object. */
    final boolean hasWindow;
    final long before;
    final long after;
    /** Null: no grace given (stream-stream: the legacy {@code JoinWindows.of}; stream-table: no grace). */
    final Long grace;
    final boolean legacy;
    final boolean versionedLeft;
    final boolean versionedRight;
    final long historyMs;
    final Settings settings;
    /** {@code self}: the one input stream (topic {@code left}) joined with itself (docs/semantics/self-join.md). */
    final boolean selfJoin;
    /** {@code optimization}: the application's {@code topology.optimization}, "none" (default) or "all". */
    final String optimization;
    final List<Rec> records;

    private Scenario(final Map<String, Object> obj, final String where) throws BadInput {
        id = (String) obj.get("id");
        final String at = where + " '" + id + "'";
        kafka = string(obj, "kafka", at, true);
        join = choice(obj, "join", JOINS, at, null);
        variant = choice(obj, "variant", VARIANTS, at, null);
        stores = choice(obj, "stores", STORES, at, "rocksdb");
        fkExtractor = choice(obj, "fk_extractor", EXTRACTORS, at, "colon-prefix");
        keyMapper = choice(obj, "key_mapper", KEY_MAPPERS, at, "key");
        if (obj.get("key_mapper") != null && !join.equals("stream-globaltable")) {
            throw new BadInput(at + ".key_mapper: only a stream-globaltable join has a key mapper");
        }
        intended = bool(obj, "intended", at);

        final Object window = obj.get("window");
        hasWindow = window != null;
        if (hasWindow) {
            final Map<String, Object> w = object(window, at + ".window");
            final Long b = integer(w, "before", at + ".window", true);
            before = b == null ? 0 : b;
            final Long a = w.containsKey("after") ? integer(w, "after", at + ".window", true) : b;
            after = a == null ? 0 : a;
            grace = integer(w, "grace", at + ".window", true);
            legacy = bool(w, "legacy", at + ".window");
        } else {
            before = 0;
            after = 0;
            grace = null;
            legacy = false;
        }
        if (join.equals("stream-globaltable") && hasWindow) {
            throw new BadInput(at + ".window: a stream-globaltable join has no window and no grace period");
        }
        if (join.equals("stream-stream") && !hasWindow) {
            throw new BadInput(at + ".window: a stream-stream join needs a window");
        }

        final Object versioned = obj.get("versioned");
        if (versioned != null) {
            final Map<String, Object> v = object(versioned, at + ".versioned");
            versionedLeft = bool(v, "left", at + ".versioned");
            versionedRight = bool(v, "right", at + ".versioned");
            final Long history = integer(v, "history_ms", at + ".versioned", false);
            if (history == null || history < 0) {
                throw new BadInput(at + ".versioned.history_ms: expected a non-negative integer");
            }
            historyMs = history;
        } else {
            versionedLeft = false;
            versionedRight = false;
            historyMs = 0;
        }

        settings = settings(obj.get("settings"), at + ".settings");
        selfJoin = bool(obj, "self", at);
        optimization = choice(obj, "optimization", OPTIMIZATIONS, at, "none");
        if (!join.equals("stream-stream") && (selfJoin || obj.get("optimization") != null)) {
            throw new BadInput(at + "." + (selfJoin ? "self" : "optimization")
                               + ": only a stream-stream join takes it");
        }

        final Object raw = obj.get("records");
        if (!(raw instanceof List)) {
            throw new BadInput(at + ".records: expected a list");
        }
        final List<Rec> recs = new ArrayList<>();
        long wallClock = 0;
        int i = 0;
        for (final Object item : (List<?>) raw) {
            final Rec rec = record(item, at + ".records[" + i + "]", wallClock);
            if (selfJoin && !rec.left) {
                throw new BadInput(at + ".records[" + i + "].side: a self-join has one input stream, "
                                   + "every record is a left record");
            }
            recs.add(rec);
            wallClock = rec.wallClock;
            i++;
        }
        records = Collections.unmodifiableList(recs);
    }

    /** Parses and validates one decoded JSON line ({@code where} is e.g. "line 3"). */
    @SuppressWarnings("unchecked")
    static Scenario parse(final Object json, final String where) throws BadInput {
        if (!(json instanceof Map)) {
            throw new BadInput(where + ": expected a JSON object");
        }
        final Map<String, Object> obj = (Map<String, Object>) json;
        final Object id = obj.get("id");
        if (!(id instanceof String) || ((String) id).isEmpty()) {
            throw new BadInput(where + ".id: expected a non-empty string, got " + Json.toJson(idOrNull(id)));
        }
        return new Scenario(obj, where);
    }

    private static Object idOrNull(final Object id) {
        return id instanceof String || id instanceof Number || id instanceof Boolean ? id : null;
    }

    private static Settings settings(final Object value, final String at) throws BadInput {
        if (value == null) {
            return new Settings(0, 0, 0);
        }
        final Map<String, Object> s = object(value, at);
        for (final String name : s.keySet()) {
            if (!Settings.NAMES.contains(name)) {
                throw new BadInput(at + ": unknown setting '" + name + "' (known: "
                                   + String.join(", ", Settings.NAMES) + ")");
            }
        }
        return new Settings(orZero(integer(s, "cache_max_bytes", at, true)),
                            orZero(integer(s, "commit_interval_ms", at, true)),
                            orZero(integer(s, "emit_interval_ms", at, true)));
    }

    private static long orZero(final Long value) {
        return value == null ? 0 : value;
    }

    /** One record; {@code previousWallClock} is the wall clock of the record before (0 for the first). */
    private static Rec record(final Object item, final String at, final long previousWallClock)
        throws BadInput {
        final Map<String, Object> r = object(item, at);
        final String side = choice(r, "side", Arrays.asList("left", "right"), at, null);
        if (!r.containsKey("key")) {
            throw new BadInput(at + ": missing field 'key'");
        }
        final Object key = r.get("key");
        if (key != null && !(key instanceof String) && !(key instanceof Long)) {
            throw new BadInput(at + ".key: expected a string, integer or null");
        }
        if (!r.containsKey("value")) {
            throw new BadInput(at + ": missing field 'value'");
        }
        final Object value = r.get("value");
        if (value != null && !(value instanceof String)) {
            throw new BadInput(at + ".value: expected a string or null");
        }
        final Long ts = integer(r, "ts", at, false);
        if (ts == null || ts < 0) {
            throw new BadInput(at + ".ts: expected a non-negative integer (Kafka rejects negative timestamps)");
        }
        final Long wallClock = integer(r, "wall_clock", at, true);
        if (wallClock != null && wallClock < previousWallClock) {
            throw new BadInput(at + ".wall_clock: " + wallClock + " is before the previous record's "
                               + previousWallClock + " (the wall clock never goes back)");
        }
        return new Rec(side.equals("left"), key, (String) value, ts,
                       wallClock == null ? previousWallClock : wallClock, bool(r, "commit", at));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(final Object value, final String at) throws BadInput {
        if (!(value instanceof Map)) {
            throw new BadInput(at + ": expected an object");
        }
        return (Map<String, Object>) value;
    }

    private static String string(final Map<String, Object> obj, final String name, final String at,
                                 final boolean required) throws BadInput {
        final Object value = obj.get(name);
        if (value == null && !required) {
            return null;
        }
        if (!(value instanceof String)) {
            throw new BadInput(at + (obj.containsKey(name) ? "." + name + ": expected a string"
                                                         : ": missing field '" + name + "'"));
        }
        return (String) value;
    }

    private static String choice(final Map<String, Object> obj, final String name, final List<String> allowed,
                                 final String at, final String dflt) throws BadInput {
        final Object value = obj.get(name);
        if (value == null && dflt != null) {
            return dflt;
        }
        if (value == null && !obj.containsKey(name)) {
            throw new BadInput(at + ": missing field '" + name + "'");
        }
        if (!allowed.contains(value)) {
            throw new BadInput(at + "." + name + ": " + Json.toJson(idOrNull(value)) + " is not one of "
                               + String.join(", ", allowed));
        }
        return (String) value;
    }

    private static boolean bool(final Map<String, Object> obj, final String name, final String at)
        throws BadInput {
        final Object value = obj.get(name);
        if (value == null) {
            return false;
        }
        if (!(value instanceof Boolean)) {
            throw new BadInput(at + "." + name + ": expected true or false");
        }
        return (Boolean) value;
    }

    private static Long integer(final Map<String, Object> obj, final String name, final String at,
                                final boolean nullable) throws BadInput {
        final Object value = obj.get(name);
        if (value == null) {
            if (nullable) {
                return null;
            }
            throw new BadInput(at + (obj.containsKey(name) ? "." + name + ": expected an integer"
                                                         : ": missing field '" + name + "'"));
        }
        if (!(value instanceof Long) || (Long) value < 0) {
            throw new BadInput(at + "." + name + ": expected a non-negative integer");
        }
        return (Long) value;
    }
}
