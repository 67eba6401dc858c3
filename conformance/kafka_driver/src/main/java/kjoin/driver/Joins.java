package kjoin.driver;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.function.Function;

import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.GlobalKTable;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.Joined;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.KeyValueMapper;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.ValueJoiner;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

/**
 * Builds the topology of one scenario: topics {@code left} and {@code right} joined into {@code output},
 * with the settings of the golden traces (scenarios/golden/README.md "How they were captured").
 *
 * <p>The joiner JSON-encodes the pair it is given ({@code ["L1",null]}), so the answer can split it back
 * into [left, right] whatever the values contain. Stream results go out with {@code to()}, table results
 * with {@code toStream().to()}.
 */
final class Joins {

    static final String LEFT = "left";
    static final String RIGHT = "right";
    static final String OUTPUT = "output";

    /** The joiner: both operands as a JSON array, so null sides and any text survive. */
    static final ValueJoiner<String, String, String> JOINER = (l, r) -> Json.toJson(Arrays.asList(l, r));

    /** How the keys of one topic are serialized: Long when every key is an integer, else String. */
    enum KeyKind {
        STRING, LONG;

        @SuppressWarnings("unchecked")
        Serde<Object> serde() {
            return (Serde<Object>) (Serde<?>) (this == LONG ? Serdes.Long() : Serdes.String());
        }
    }

    private final Scenario sc;
    final KeyKind leftKeys;
    final KeyKind rightKeys;
    /** The topics the topology reads and writes: {@link #LEFT}, {@link #RIGHT}, {@link #OUTPUT}, prefixed. */
    final String leftTopic;
    final String rightTopic;
    final String outputTopic;

    /** The topology of {@code sc} over the topics {@code left}, {@code right} and {@code output}. */
    Joins(final Scenario sc) throws Scenario.BadInput {
        this(sc, "");
    }

    /**
     * The topology of {@code sc} over topics named {@code topicPrefix} + {@code left}, {@code right},
     * {@code output} (the application mode gives each scenario topics of its own on one broker).
     */
    Joins(final Scenario sc, final String topicPrefix) throws Scenario.BadInput {
        this.sc = sc;
        this.leftTopic = topicPrefix + LEFT;
        this.rightTopic = topicPrefix + RIGHT;
        this.outputTopic = topicPrefix + OUTPUT;
        final KeyKind left = keyKind(sc.records, true);
        final KeyKind right = keyKind(sc.records, false);
        if (sc.join.equals("fk")) {
            if (right == KeyKind.LONG) {
                throw new Scenario.BadInput("the right table of a foreign-key join is keyed by the foreign key, "
                                            + "a string extracted from the left value: right keys must be strings");
            }
            leftKeys = left == null ? KeyKind.STRING : left;
            rightKeys = KeyKind.STRING;
        } else if (sc.join.equals("stream-globaltable") && !sc.keyMapper.equals("key")) {
            if (right == KeyKind.LONG) {
                throw new Scenario.BadInput("the global table of a stream-globaltable join with key_mapper '"
                                            + sc.keyMapper + "' is keyed by text taken from the stream value: "
                                            + "right keys must be strings");
            }
            leftKeys = left == null ? KeyKind.STRING : left;
            rightKeys = KeyKind.STRING;
        } else {
            if (left != null && right != null && left != right) {
                throw new Scenario.BadInput("left and right keys must have one type (all strings or all integers)");
            }
            leftKeys = left != null ? left : right != null ? right : KeyKind.STRING;
            rightKeys = leftKeys;
        }
    }

    /**
     * Sets the application's default serdes to the scenario's: its left keys' serde (the stream side's, for a
     * join with a stream) and String values, as Kafka's own join tests configure theirs. A processor that
     * takes no serde from the topology uses them: the stream-table join's grace buffer did until KAFKA-18479
     * (fixed in 3.9.1 and 4.0.0), so integer keys under String defaults failed on the first buffered record
     * with a ClassCastException (seen on 3.6.2, 3.7.2, 3.8.1 and 3.9.0; 3.9.2 and 4.0.0 take the Joined's).
     */
    void putDefaultSerdes(final Properties props) {
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, leftKeys.serde().getClass().getName());
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
    }

    private static KeyKind keyKind(final List<Scenario.Rec> records, final boolean left)
        throws Scenario.BadInput {
        KeyKind kind = null;
        for (final Scenario.Rec r : records) {
            if (r.left != left || r.key == null) {
                continue;
            }
            final KeyKind k = r.key instanceof Long ? KeyKind.LONG : KeyKind.STRING;
            if (kind != null && kind != k) {
                throw new Scenario.BadInput("the " + (left ? "left" : "right")
                                            + " keys mix strings and integers; give one type");
            }
            kind = k;
        }
        return kind;
    }

    /**
     * The topology, or {@link Compat.Unsupported} / {@link Scenario.BadInput} if Kafka cannot express it. It is
     * built with the application's configuration {@code props}, so {@code topology.optimization} applies (the
     * self-join rewrite of 3.4+ happens here, docs/semantics/self-join.md).
     */
    Topology build(final Properties props) throws Compat.Unsupported, Scenario.BadInput {
        final StreamsBuilder builder = new StreamsBuilder();
        switch (sc.join) {
            case "stream-stream":
                streamStream(builder);
                break;
            case "stream-table":
                streamTable(builder);
                break;
            case "table-table":
                tableTable(builder);
                break;
            case "stream-globaltable":
                streamGlobalTable(builder);
                break;
            default:
                foreignKey(builder);
        }
        return builder.build(props);
    }

    private Produced<Object, String> produced() {
        return Produced.with(leftKeys.serde(), Serdes.String());
    }

    private KStream<Object, String> stream(final StreamsBuilder builder, final String side, final KeyKind keys) {
        final String topic = side.equals(LEFT) ? leftTopic : rightTopic;
        return builder.stream(topic, Consumed.with(keys.serde(), Serdes.String()));
    }

    /**
     * A source table: in a versioned store when that side is versioned, in an in-memory store for
     * {@code stores: memory}, else Kafka's default (RocksDB) store.
     */
    private KTable<Object, String> table(final StreamsBuilder builder, final String side, final KeyKind keys,
                                         final boolean versioned) throws Compat.Unsupported {
        final String topic = side.equals(LEFT) ? leftTopic : rightTopic;
        final Consumed<Object, String> consumed = Consumed.with(keys.serde(), Serdes.String());
        final Materialized<Object, String, KeyValueStore<Bytes, byte[]>> materialized;
        if (versioned) {
            materialized = Materialized.as(Compat.versionedStore(side + "-versioned", sc.historyMs));
        } else if (sc.stores.equals("memory")) {
            materialized = Materialized.as(Stores.inMemoryKeyValueStore(side + "-table"));
        } else {
            return builder.table(topic, consumed);
        }
        return builder.table(topic, consumed, materialized.withKeySerde(keys.serde())
                                                          .withValueSerde(Serdes.String()));
    }

    private void requireNoVersions(final String why) throws Scenario.BadInput {
        if (sc.versionedLeft || sc.versionedRight) {
            throw new Scenario.BadInput(why);
        }
    }

    // --- stream-stream -----------------------------------------------------------------------------------

    /** The scenario's window: see scenarios/golden/README.md and oracle/records.py {@code Window}. */
    JoinWindows windows() throws Compat.Unsupported {
        JoinWindows windows;
        if (sc.grace != null && !sc.legacy && Compat.hasTimeDifferenceAndGrace()) {
            windows = Compat.timeDifferenceAndGrace(sc.before, sc.grace);
        } else {
            // the legacy API; also "grace: n" where ofTimeDifferenceAndGrace does not exist (3.0 and older),
            // as the golden 3.0 traces were captured
            windows = Compat.legacyOf(sc.before);
        }
        if (sc.after != sc.before) {
            windows = windows.after(Duration.ofMillis(sc.after));
        }
        if (sc.grace != null && (sc.legacy || !Compat.hasTimeDifferenceAndGrace())) {
            windows = Compat.legacyGrace(windows, sc.grace);
        }
        return windows;
    }

    private void streamStream(final StreamsBuilder builder) throws Compat.Unsupported, Scenario.BadInput {
        requireNoVersions("a stream-stream join has no tables to version");
        final JoinWindows windows = windows();
        final Serde<Object> keySerde = leftKeys.serde();
        StreamJoined<Object, String, String> joined = StreamJoined.with(keySerde, Serdes.String(), Serdes.String());
        if (sc.stores.equals("memory")) {
            joined = joined.withThisStoreSupplier(inMemoryJoinStore("left-join-store", windows))
                           .withOtherStoreSupplier(inMemoryJoinStore("right-join-store", windows));
        }
        final KStream<Object, String> left = stream(builder, LEFT, leftKeys);
        // a self-join joins the one stream object with itself, s.join(s): the shape the optimizer rewrites
        final KStream<Object, String> right = sc.selfJoin ? left : stream(builder, RIGHT, rightKeys);
        final KStream<Object, String> result;
        switch (sc.variant) {
            case "inner":
                result = left.join(right, JOINER, windows, joined);
                break;
            case "left":
                result = left.leftJoin(right, JOINER, windows, joined);
                break;
            default:
                result = left.outerJoin(right, JOINER, windows, joined);
        }
        result.to(outputTopic, produced());
    }

    /** An in-memory window store with the retention and size Kafka requires of a join store supplier. */
    private static WindowBytesStoreSupplier inMemoryJoinStore(final String name, final JoinWindows windows) {
        return Stores.inMemoryWindowStore(name, Duration.ofMillis(windows.size() + windows.gracePeriodMs()),
                                          Duration.ofMillis(windows.size()), true);
    }

    // --- stream-table ------------------------------------------------------------------------------------

    private void streamTable(final StreamsBuilder builder) throws Compat.Unsupported, Scenario.BadInput {
        if (sc.variant.equals("outer")) {
            throw new Scenario.BadInput("a KStream-KTable join is inner or left; there is no outer join");
        }
        if (sc.versionedLeft) {
            throw new Scenario.BadInput("a KStream-KTable join's stream side is not a table; it has no versions");
        }
        Joined<Object, String, String> joined = Joined.with(leftKeys.serde(), Serdes.String(), Serdes.String());
        if (sc.grace != null) {
            joined = Compat.withGracePeriod(joined, sc.grace);
        }
        final KStream<Object, String> left = stream(builder, LEFT, leftKeys);
        final KTable<Object, String> right = table(builder, RIGHT, rightKeys, sc.versionedRight);
        final KStream<Object, String> result = sc.variant.equals("inner")
            ? left.join(right, JOINER, joined)
            : left.leftJoin(right, JOINER, joined);
        result.to(outputTopic, produced());
    }

    // --- stream-globaltable ------------------------------------------------------------------------------

    /**
     * The key mapper of a stream-globaltable join (oracle/records.py {@code mapped_key_of}): the stream key,
     * the value's colon prefix (empty is null), the second field of {@code value.split(",")} (Kafka's
     * KStreamGlobalKTableJoinTest), or always null. A null value maps to null: Kafka calls the mapper before
     * it drops a null-value record (2.7+), and the mapper must not fail there.
     */
    static KeyValueMapper<Object, String, Object> keyMapper(final String kind) {
        switch (kind) {
            case "key":
                return (k, v) -> k;
            case "colon-prefix": {
                final Function<String, String> prefix = extractor("colon-prefix");
                return (k, v) -> v == null ? null : prefix.apply(v);
            }
            case "comma-second":
                return (k, v) -> {
                    if (v == null) {
                        return null;
                    }
                    final String[] tokens = v.split(",");
                    return tokens.length > 1 ? tokens[1] : null;
                };
            default:
                return (k, v) -> null;
        }
    }

    private void streamGlobalTable(final StreamsBuilder builder) throws Scenario.BadInput {
        if (sc.variant.equals("outer")) {
            throw new Scenario.BadInput("a KStream-GlobalKTable join is inner or left; there is no outer join");
        }
        requireNoVersions("a GlobalKTable cannot be versioned");
        final KStream<Object, String> left = stream(builder, LEFT, leftKeys);
        final GlobalKTable<Object, String> right =
            builder.globalTable(rightTopic, Consumed.with(rightKeys.serde(), Serdes.String()));
        final KeyValueMapper<Object, String, Object> mapper = keyMapper(sc.keyMapper);
        final KStream<Object, String> result = sc.variant.equals("inner")
            ? left.join(right, mapper, JOINER)
            : left.leftJoin(right, mapper, JOINER);
        result.to(outputTopic, produced());
    }

    // --- table-table -------------------------------------------------------------------------------------

    private void tableTable(final StreamsBuilder builder) throws Compat.Unsupported {
        final KTable<Object, String> left = table(builder, LEFT, leftKeys, sc.versionedLeft);
        final KTable<Object, String> right = table(builder, RIGHT, rightKeys, sc.versionedRight);
        final KTable<Object, String> result;
        switch (sc.variant) {
            case "inner":
                result = left.join(right, JOINER);
                break;
            case "left":
                result = left.leftJoin(right, JOINER);
                break;
            default:
                result = left.outerJoin(right, JOINER);
        }
        result.toStream().to(outputTopic, produced());
    }

    // --- foreign-key -------------------------------------------------------------------------------------

    /**
     * The foreign key of a left value (oracle/records.py {@code foreign_key_of}): {@code colon-prefix} is the
     * text before the first ':' (the whole value if none), {@code pipe-suffix} the text after the last '|';
     * an empty result is a null foreign key.
     */
    static Function<String, String> extractor(final String kind) {
        if (kind.equals("pipe-suffix")) {
            return v -> emptyToNull(v.substring(v.lastIndexOf('|') + 1));
        }
        return v -> {
            final int colon = v.indexOf(':');
            return emptyToNull(colon < 0 ? v : v.substring(0, colon));
        };
    }

    private static String emptyToNull(final String s) {
        return s.isEmpty() ? null : s;
    }

    private void foreignKey(final StreamsBuilder builder) throws Compat.Unsupported, Scenario.BadInput {
        if (sc.variant.equals("outer")) {
            throw new Scenario.BadInput("Kafka has no outer foreign-key join (only inner and left)");
        }
        final KTable<Object, String> left = table(builder, LEFT, leftKeys, sc.versionedLeft);
        final KTable<Object, String> right = table(builder, RIGHT, rightKeys, sc.versionedRight);
        final Function<String, Object> fk = extractor(sc.fkExtractor)::apply;
        final KTable<Object, String> result = sc.variant.equals("inner")
            ? left.join(right, fk, JOINER)
            : left.leftJoin(right, fk, JOINER);
        result.toStream().to(outputTopic, produced());
    }
}
