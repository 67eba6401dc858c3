package kjoin.driver;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The main loop: one portable scenario per stdin line, one answer line per scenario on stdout (flushed),
 * each scenario run through a fresh {@link TopologyTestDriver} of the Kafka Streams version this program was
 * built against. With {@code -Dkjoin.timing=true} (or {@code --timing}) each answer carries {@code driver_ns}
 * (the nanoseconds spent piping its records in and reading its outputs) and a timing report goes to stderr at
 * the end. {@code --version} prints the Kafka Streams version and exits.
 */
public final class Main {

    /** Per join kind: scenarios run, records piped, nanoseconds inside the drivers (piping and reading). */
    private static final class Timing {
        final Map<String, long[]> perJoin = new LinkedHashMap<>();
        long setupNanos;
        long teardownNanos;
        final long jvmStartMillis = java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
        final long mainStartNanos = System.nanoTime();
        final long mainStartMillis = System.currentTimeMillis();

        void add(final String join, final int records, final long nanos) {
            final long[] row = perJoin.computeIfAbsent(join, j -> new long[3]);
            row[0]++;
            row[1] += records;
            row[2] += nanos;
        }

        String report() {
            final Map<String, Object> joins = new LinkedHashMap<>();
            for (final Map.Entry<String, long[]> e : perJoin.entrySet()) {
                final Map<String, Object> row = new LinkedHashMap<>();
                row.put("scenarios", e.getValue()[0]);
                row.put("records", e.getValue()[1]);
                row.put("driver_ns", e.getValue()[2]);
                joins.put(e.getKey(), row);
            }
            final Map<String, Object> all = new LinkedHashMap<>();
            all.put("kafka", Compat.KAFKA_VERSION);
            all.put("joins", joins);
            all.put("setup_ns", setupNanos);
            all.put("teardown_ns", teardownNanos);
            all.put("jvm_start_to_main_ms", mainStartMillis - jvmStartMillis);
            all.put("main_ns", System.nanoTime() - mainStartNanos);
            return "kjoin-timing " + Json.toJson(all);
        }
    }

    private final Timing timing = new Timing();
    /** With timing on, each answer also carries {@code driver_ns}: its own time inside the driver. */
    private final boolean answerTiming;
    private long lastRunNanos;

    private Main(final boolean answerTiming) {
        this.answerTiming = answerTiming;
    }

    public static void main(final String[] args) throws IOException {
        final List<String> argList = Arrays.asList(args);
        if (argList.contains("--version")) {
            System.out.println(Compat.KAFKA_VERSION);
            return;
        }
        final boolean reportTiming = Boolean.getBoolean("kjoin.timing") || argList.contains("--timing");
        final Main main = new Main(reportTiming);
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        final Writer out = new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8);
        String line;
        int number = 0;
        while ((line = in.readLine()) != null) {
            number++;
            if (line.trim().isEmpty()) {
                continue;
            }
            out.write(main.answer(line, "line " + number));
            out.write('\n');
            out.flush();
        }
        if (reportTiming) {
            final PrintStream err = System.err;
            err.println(main.timing.report());
            err.flush();
        }
    }

    static String error(final Object id, final String message) {
        final Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("id", id);
        answer.put("error", message);
        return Json.toJson(answer);
    }

    /** The answer line for one scenario line: outputs, or an error saying why there are none. */
    String answer(final String line, final String where) {
        final Object json;
        try {
            json = Json.parse(line);
        } catch (final Json.ParseError ex) {
            return error(null, where + ": not valid JSON (" + ex.getMessage() + ")");
        }
        final Scenario sc;
        try {
            sc = Scenario.parse(json, where);
        } catch (final Scenario.BadInput ex) {
            final Object id = json instanceof Map ? ((Map<?, ?>) json).get("id") : null;
            return error(id instanceof String ? id : null, ex.getMessage());
        }
        final String at = where + " '" + sc.id + "'";
        if (!matchesBuiltVersion(sc.kafka)) {
            return error(sc.id, at + ".kafka: this driver runs Kafka Streams " + Compat.KAFKA_VERSION
                                + ", not " + sc.kafka + " (build one for that version)");
        }
        if (sc.intended) {
            return error(sc.id, at + ".intended: real Kafka Streams runs as released; it has no "
                                + "'intended' (bug-free) mode");
        }
        try {
            final List<Object> outputs = run(sc);
            final Map<String, Object> answer = new LinkedHashMap<>();
            answer.put("id", sc.id);
            answer.put("outputs", outputs);
            if (answerTiming) {
                answer.put("driver_ns", lastRunNanos);
            }
            return Json.toJson(answer);
        } catch (final Scenario.BadInput | Compat.Unsupported ex) {
            return error(sc.id, at + ": " + ex.getMessage());
        } catch (final RecordFailure ex) {
            return error(sc.id, at + ".records[" + ex.index + "]: Kafka Streams " + Compat.KAFKA_VERSION
                                + " failed: " + describe(ex.getCause()));
        } catch (final RuntimeException ex) {
            return error(sc.id, at + ": Kafka Streams " + Compat.KAFKA_VERSION + " refused the topology: "
                                + describe(ex));
        }
    }

    /** "3.9" matches 3.9.x, "3.9.1" only 3.9.1. */
    static boolean matchesBuiltVersion(final String kafka) {
        return Compat.KAFKA_VERSION.equals(kafka) || Compat.KAFKA_VERSION.startsWith(kafka + ".");
    }

    static String describe(final Throwable ex) {
        final StringBuilder s = new StringBuilder(ex.getClass().getSimpleName() + ": " + ex.getMessage());
        for (Throwable cause = ex.getCause(); cause != null && cause != ex; cause = cause.getCause()) {
            s.append(" / caused by ").append(cause.getClass().getSimpleName()).append(": ").append(cause.getMessage());
            if (cause.getCause() == cause) {
                break;
            }
        }
        return s.toString();
    }

    /** Kafka threw while processing input record {@code index}. */
    private static final class RecordFailure extends Exception {
        private static final long serialVersionUID = 1L;
        final int index;

        RecordFailure(final int index, final RuntimeException cause) {
            super(cause);
            this.index = index;
        }
    }

    /**
     * Where the mocked wall clock starts: a fixed instant, so that runs repeat (TopologyTestDriver's default
     * is the real time). A record's {@code wall_clock} counts from here.
     */
    static final Instant WALL_CLOCK_START = Instant.parse("2020-01-01T00:00:00Z");

    /** The application's configuration: the scenario's settings (README.md "Production settings"). */
    private static Properties config(final Path stateDir, final Scenario sc) {
        final Scenario.Settings settings = sc.settings;
        final Properties props = new Properties();
        // "none" or "all", both known since 2.0; "all" rewrites a self-join from 3.4 (docs/semantics/self-join.md)
        props.put("topology.optimization", sc.optimization);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "kjoin");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        putSettings(props, settings);
        return props;
    }

    /**
     * The scenario's settings as Kafka Streams configs, shared with the application mode
     * ({@link Application}): the record cache, the commit interval, the stream-stream emit interval.
     */
    static void putSettings(final Properties props, final Scenario.Settings settings) {
        // the record cache under both names: statestore.cache.max.bytes is 3.4+, the old name is deprecated
        // there and ignored (with a warning) where it no longer exists
        final String cacheMaxBytes = Long.toString(settings.cacheMaxBytes);
        props.put("cache.max.bytes.buffering", cacheMaxBytes);
        props.put("statestore.cache.max.bytes", cacheMaxBytes);
        // TopologyTestDriver commits after every record whatever it says; a KafkaStreams application reads it
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(settings.commitIntervalMs));
        // held left/outer stream-stream results: a pass over them at most once per interval of wall-clock
        // time (3.0+; the test driver defaults it to 0 only from 3.8 on, so it is always set here)
        props.put(Compat.EMIT_INTERVAL_CONFIG, Long.toString(settings.emitIntervalMs));
    }

    /** Runs one scenario through a fresh TopologyTestDriver and returns its outputs in emission order. */
    private List<Object> run(final Scenario sc) throws Scenario.BadInput, Compat.Unsupported, RecordFailure {
        final long setupStart = System.nanoTime();
        Compat.requireEmitInterval(sc.settings.emitIntervalMs);
        if (sc.settings.cacheMaxBytes > 0 && sc.settings.commitIntervalMs > 0
                && (sc.join.equals("table-table") || sc.join.equals("fk"))) {
            throw new Compat.Unsupported("TopologyTestDriver commits after every record, so it cannot show what "
                                         + "a record cache merges under commit_interval_ms = "
                                         + sc.settings.commitIntervalMs + "; run the scenario as an application "
                                         + "(kjoin kafka --application, docs/kafka.md)");
        }
        final Joins joins = new Joins(sc);
        final Path stateDir;
        try {
            stateDir = Files.createTempDirectory("kjoin-tt-");
        } catch (final IOException ex) {
            throw new IllegalStateException("cannot create a state directory", ex);
        }
        TopologyTestDriver driver = null;
        try {
            final Properties config = config(stateDir, sc);
            joins.putDefaultSerdes(config);
            driver = new TopologyTestDriver(joins.build(config), config, WALL_CLOCK_START);
            final TestInputTopic<Object, String> left = driver.createInputTopic(
                Joins.LEFT, joins.leftKeys.serde().serializer(), Serdes.String().serializer());
            final TestInputTopic<Object, String> right = driver.createInputTopic(
                Joins.RIGHT, joins.rightKeys.serde().serializer(), Serdes.String().serializer());
            final TestOutputTopic<Object, String> output = driver.createOutputTopic(
                Joins.OUTPUT, joins.leftKeys.serde().deserializer(), Serdes.String().deserializer());
            timing.setupNanos += System.nanoTime() - setupStart;

            final List<TestRecord<Object, String>> emitted = new ArrayList<>();
            final long start = System.nanoTime();
            long wallClock = 0;
            int index = 0;
            for (final Scenario.Rec r : sc.records) {
                try {
                    if (r.wallClock > wallClock) {
                        driver.advanceWallClockTime(Duration.ofMillis(r.wallClock - wallClock));
                        wallClock = r.wallClock;
                    }
                    (r.left ? left : right).pipeInput(r.key, r.value, r.ts);
                } catch (final RuntimeException ex) {
                    throw new RecordFailure(index, ex);
                }
                emitted.addAll(output.readRecordsToList());
                index++;
            }
            lastRunNanos = System.nanoTime() - start;
            timing.add(sc.join, sc.records.size(), lastRunNanos);
            return toJson(emitted);
        } finally {
            final long teardownStart = System.nanoTime();
            if (driver != null) {
                try {
                    driver.close();
                } catch (final RuntimeException ignored) {
                    // a failed close must not hide the scenario's answer; the state directory goes anyway
                }
            }
            deleteRecursively(stateDir);
            timing.teardownNanos += System.nanoTime() - teardownStart;
        }
    }

    /** Output records as portable outputs: the joiner's JSON pair parsed back, a null value a tombstone. */
    private static List<Object> toJson(final List<TestRecord<Object, String>> emitted) {
        final List<Object> outputs = new ArrayList<>(emitted.size());
        for (final TestRecord<Object, String> record : emitted) {
            outputs.add(output(record.key(), record.value(), record.timestamp()));
        }
        return outputs;
    }

    /** One portable output: the joiner's JSON pair parsed back, a null value a tombstone. */
    static Map<String, Object> output(final Object key, final String value, final long ts) {
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("key", key);
        Object parsed = null;
        if (value != null) {
            try {
                parsed = Json.parse(value);
            } catch (final Json.ParseError ex) {
                throw new IllegalStateException("output value not written by the joiner: " + value, ex);
            }
        }
        out.put("value", parsed);
        out.put("ts", ts);
        return out;
    }

    static void deleteRecursively(final Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (final IOException ignored) {
            // best effort: the directory is in the system's temporary folder
        }
    }
}
