package kjoin.driver;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;

/**
 * The application mode: each portable scenario (one stdin line) run as a real {@link KafkaStreams}
 * application against a broker, with the topology {@link Joins} builds for the test driver, one answer line
 * per scenario on stdout. README.md "Application mode" says what it does and why.
 *
 * <pre>
 *   Application --bootstrap HOST:PORT --partitions N --log FILE [--timeout-s S]
 * </pre>
 *
 * Per scenario: fresh topics {@code left}, {@code right} and {@code output} of N partitions (the names the
 * oracle's record-cache sizes assume, docs/semantics/production.md PR-9: an entry counts its topic's name;
 * the scenarios of one broker run one after the other, each deleting its topics, and waiting until they are
 * gone, before the next creates them again);
 * the records are cut into segments after each record with {@code "commit": true}; for each segment its
 * records are produced (each to the partition Kafka's default partitioner gives its key, a null key to 0)
 * and acknowledged, then the application (same {@code application.id} every time) is started, runs until its
 * one stream thread has processed them all, and is closed, which commits every task and flushes its caches.
 * Then the output topic is read back per partition. The answer: {@code {"id", "partitions", "inputs": [
 * {"partition", "offset"} per record], "outputs": [{"key", "value", "ts", "partition", "offset"}]}} (outputs
 * in partition and offset order), or {@code {"id", "error"}}. Everything Kafka and this program log goes to
 * the log file, never to the terminal.
 */
public final class Application {

    /** What stops a scenario; the message becomes its error line. */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;

        Failure(final String message) {
            super(message);
        }
    }

    /** No timed commit may interfere: commits happen only at close (README.md "Application mode"). */
    static final long NO_TIMED_COMMIT_MS = 24L * 60 * 60 * 1000;

    private final String bootstrap;
    private final int partitions;
    private final long timeoutMs;
    private final PrintStream log;
    private int scenarios;

    private Application(final String bootstrap, final int partitions, final long timeoutMs, final PrintStream log) {
        this.bootstrap = bootstrap;
        this.partitions = partitions;
        this.timeoutMs = timeoutMs;
        this.log = log;
    }

    public static void main(final String[] args) throws IOException {
        final Map<String, String> options = options(args);
        if (options == null) {
            System.err.println("usage: Application --bootstrap HOST:PORT --partitions N --log FILE [--timeout-s S]");
            System.exit(2);
            return;
        }
        final PrintStream log = new PrintStream(new FileOutputStream(options.get("--log"), true), true, "UTF-8");
        // whatever Kafka or the JVM prints (SLF4J's notices, stack traces) goes to the log, not the terminal
        System.setErr(log);
        System.setOut(log);
        final Application app = new Application(options.get("--bootstrap"),
                                                Integer.parseInt(options.get("--partitions")),
                                                Long.parseLong(options.getOrDefault("--timeout-s", "180")) * 1000,
                                                log);
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        final Writer out = new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8);
        String line;
        int number = 0;
        while ((line = in.readLine()) != null) {
            number++;
            if (line.trim().isEmpty()) {
                continue;
            }
            String answer;
            try {
                answer = app.answer(line, "line " + number);
            } catch (final RuntimeException ex) {
                ex.printStackTrace(log);
                answer = Main.error(null, "line " + number + ": " + Main.describe(ex));
            }
            out.write(answer);
            out.write('\n');
            out.flush();
        }
        log.close();
    }

    private static Map<String, String> options(final String[] args) {
        final Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i], args[i + 1]);
        }
        if (args.length % 2 != 0 || !options.containsKey("--bootstrap") || !options.containsKey("--partitions")
            || !options.containsKey("--log")) {
            return null;
        }
        return options;
    }

    /** The answer line for one scenario line. */
    String answer(final String line, final String where) {
        final Object json;
        try {
            json = Json.parse(line);
        } catch (final Json.ParseError ex) {
            return Main.error(null, where + ": not valid JSON (" + ex.getMessage() + ")");
        }
        final Scenario sc;
        try {
            sc = Scenario.parse(json, where);
        } catch (final Scenario.BadInput ex) {
            final Object id = json instanceof Map ? ((Map<?, ?>) json).get("id") : null;
            return Main.error(id instanceof String ? id : null, ex.getMessage());
        }
        final String at = where + " '" + sc.id + "'";
        if (!Main.matchesBuiltVersion(sc.kafka)) {
            return Main.error(sc.id, at + ".kafka: this driver runs Kafka Streams " + Compat.KAFKA_VERSION
                                     + ", not " + sc.kafka + " (build one for that version)");
        }
        if (sc.intended) {
            return Main.error(sc.id, at + ".intended: real Kafka Streams runs as released; it has no "
                                     + "'intended' (bug-free) mode");
        }
        for (int i = 0; i < sc.records.size(); i++) {
            if (sc.records.get(i).wallClock != 0) {
                return Main.error(sc.id, at + ".records[" + i + "].wall_clock: an application runs on the real "
                                         + "wall clock; a mocked one needs the test driver (kjoin kafka without "
                                         + "--application)");
            }
        }
        String answer = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                return attempt(sc, at);
            } catch (final Failure ex) {
                log.println("attempt " + attempt + " failed: " + ex.getMessage());
                answer = Main.error(sc.id, at + ": Kafka Streams " + Compat.KAFKA_VERSION + " application: "
                                           + ex.getMessage());
            }
        }
        return answer;
    }

    /**
     * How often a scenario is tried before its error line is the answer: a loaded machine can time out a
     * produce request or a run; each attempt starts afresh (new topics, a new application id).
     */
    static final int ATTEMPTS = 3;

    /** One run of a scenario from scratch; {@link Failure} when the broker or the application failed. */
    private String attempt(final Scenario sc, final String at) throws Failure {
        scenarios++;
        final String app = "kjoin-app-" + scenarios + "-" + Long.toHexString(System.nanoTime());
        log.println(Instant.now() + " scenario " + sc.id + " as application " + app);
        Path stateDir = null;
        try (Admin admin = Admin.create(adminConfig())) {
            stateDir = Files.createTempDirectory("kjoin-app-");
            final Joins joins = new Joins(sc);
            final Topology topology = joins.build(streamsConfig(app, stateDir, sc, joins));
            log.println(topology.describe());
            deleteTopics(admin, app, joins);
            createTopics(admin, joins);
            final List<Object> inputs = new ArrayList<>();
            try (KafkaProducer<byte[], byte[]> producer = producer()) {
                int from = 0;
                for (final int end : segmentEnds(sc)) {
                    produce(producer, joins, sc.records.subList(from, end), inputs);
                    runSegment(topology, streamsConfig(app, stateDir, sc, joins), end - from, sc.join);
                    from = end;
                }
            }
            final Map<String, Object> answer = new LinkedHashMap<>();
            answer.put("id", sc.id);
            answer.put("partitions", partitions);
            answer.put("inputs", inputs);
            answer.put("outputs", readOutputs(joins));
            deleteTopics(admin, app, joins);
            log.println(Instant.now() + " scenario " + sc.id + " done");
            return Json.toJson(answer);
        } catch (final Scenario.BadInput | Compat.Unsupported ex) {
            return Main.error(sc.id, at + ": " + ex.getMessage());
        } catch (final IOException | RuntimeException ex) {
            ex.printStackTrace(log);
            return Main.error(sc.id, at + ": Kafka Streams " + Compat.KAFKA_VERSION + " application failed: "
                                     + Main.describe(ex));
        } finally {
            if (stateDir != null) {
                Main.deleteRecursively(stateDir);
            }
        }
    }

    /** Where each segment ends (exclusive): after each record with {@code commit}, and at the end. */
    static List<Integer> segmentEnds(final Scenario sc) {
        final List<Integer> ends = new ArrayList<>();
        for (int i = 0; i < sc.records.size(); i++) {
            if (sc.records.get(i).commit && i + 1 < sc.records.size()) {
                ends.add(i + 1);
            }
        }
        ends.add(sc.records.size());
        return ends;
    }

    private Properties adminConfig() {
        final Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return props;
    }

    private void createTopics(final Admin admin, final Joins joins) throws Failure {
        final List<NewTopic> topics = new ArrayList<>();
        for (final String name : Arrays.asList(joins.leftTopic, joins.rightTopic, joins.outputTopic)) {
            topics.add(new NewTopic(name, partitions, (short) 1));
        }
        try {
            admin.createTopics(topics).all().get();
        } catch (final Exception ex) {
            throw new Failure("cannot create the topics: " + Main.describe(ex));
        }
    }

    /** How long a deletion of topics may take to be complete (the broker removes them asynchronously). */
    static final long TOPICS_GONE_TIMEOUT_MS = 60_000;

    /**
     * Removes the scenario's topics (a previous attempt's too) and the application's internal ones
     * (changelogs, repartition topics: {@code <app>-...}), and waits until the broker no longer lists them,
     * so that the next scenario can create {@code left}, {@code right} and {@code output} afresh.
     */
    private void deleteTopics(final Admin admin, final String app, final Joins joins) throws Failure {
        final Set<String> ours = Set.of(joins.leftTopic, joins.rightTopic, joins.outputTopic);
        final long deadline = System.currentTimeMillis() + TOPICS_GONE_TIMEOUT_MS;
        try {
            while (true) {
                final Set<String> names = admin.listTopics().names().get().stream()
                    .filter(name -> ours.contains(name) || name.startsWith(app + "-"))
                    .collect(Collectors.toSet());
                if (names.isEmpty()) {
                    return;
                }
                if (System.currentTimeMillis() > deadline) {
                    throw new Failure("the topics " + names + " were not deleted within "
                                      + TOPICS_GONE_TIMEOUT_MS / 1000 + " s");
                }
                try {
                    admin.deleteTopics(names).all().get();
                } catch (final java.util.concurrent.ExecutionException ex) {
                    // one of them is already being deleted: list again until all are gone
                    log.println("deleting " + names + ": " + Main.describe(ex));
                }
                Thread.sleep(100);
            }
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new Failure("interrupted");
        } catch (final java.util.concurrent.ExecutionException ex) {
            throw new Failure("cannot list the topics: " + Main.describe(ex));
        }
    }

    private KafkaProducer<byte[], byte[]> producer() {
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        // One request in flight: the topics are new, and the broker answers NOT_LEADER_OR_FOLLOWER to a
        // partition it has not created yet although its metadata already names it the leader. With several
        // requests in flight a later batch (sequence n > 0) could then reach the created partition first, be
        // accepted (no producer state: any first sequence goes, before Kafka 4.5's KAFKA-15591), and the
        // first batch's every retry fail with OUT_OF_ORDER_SEQUENCE_NUMBER until its delivery timeout
        // (docs/kafka.md, "Application mode"). With one, a failed batch is retried before the next is sent.
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        // anything else that holds a produce request up fails the attempt within 30 s instead of 120, and
        // the scenario is tried again from scratch
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /**
     * Produces {@code records} in their order, each to the partition of its key as Kafka's default
     * partitioner chooses it for a keyed record (murmur2 of the serialized key), a null key to partition 0;
     * waits until all are acknowledged and adds each one's {@code {"partition", "offset"}} to {@code inputs}.
     */
    private void produce(final KafkaProducer<byte[], byte[]> producer, final Joins joins,
                         final List<Scenario.Rec> records, final List<Object> inputs) throws Failure {
        final List<java.util.concurrent.Future<RecordMetadata>> sent = new ArrayList<>();
        for (final Scenario.Rec r : records) {
            final String topic = r.left ? joins.leftTopic : joins.rightTopic;
            final Serde<Object> keys = (r.left ? joins.leftKeys : joins.rightKeys).serde();
            final byte[] key = r.key == null ? null : keys.serializer().serialize(topic, r.key);
            final int partition = key == null ? 0 : Utils.toPositive(Utils.murmur2(key)) % partitions;
            final byte[] value = r.value == null ? null : r.value.getBytes(StandardCharsets.UTF_8);
            sent.add(producer.send(new ProducerRecord<>(topic, partition, r.ts, key, value)));
        }
        producer.flush();
        try {
            for (final java.util.concurrent.Future<RecordMetadata> each : sent) {
                final RecordMetadata meta = each.get();
                final Map<String, Object> coordinates = new LinkedHashMap<>();
                coordinates.put("partition", (long) meta.partition());
                coordinates.put("offset", meta.offset());
                inputs.add(coordinates);
            }
        } catch (final Exception ex) {
            throw new Failure("producing the input failed: " + Main.describe(ex));
        }
    }

    /** The application's configuration (README.md "Application mode"). */
    private Properties streamsConfig(final String app, final Path stateDir, final Scenario sc, final Joins joins) {
        final Scenario.Settings settings = sc.settings;
        final Properties props = new Properties();
        props.put("topology.optimization", sc.optimization);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "1");
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
        Main.putSettings(props, settings);
        if (settings.commitIntervalMs == 0) {
            // absent: no timed commit at all; the application commits when it is closed
            props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(NO_TIMED_COMMIT_MS));
        }
        props.put("max.task.idle.ms", Long.toString(maxTaskIdleMs()));
        // a restarted instance takes its predecessor's place at once instead of waiting for its session to end
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), app + "-instance");
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), "10000");
        joins.putDefaultSerdes(props);
        return props;
    }

    /**
     * A task waits for each of its partitions whose records are on the broker (all input is written before
     * the application starts). From 3.0 (KIP-695, {@code PartitionGroup#readyToProcess}) a task with an empty
     * partition waits while that partition's lag is unknown or above 0, and then {@code max.task.idle.ms}
     * longer for new data: 0 waits exactly for what is on the broker. Before 3.0 the idle time is all there
     * is: a task waits that long for an empty partition, so it is set to 5 s (README.md "Application mode").
     */
    static long maxTaskIdleMs() {
        final int major = Integer.parseInt(Compat.KAFKA_VERSION.split("\\.")[0]);
        return major >= 3 ? 0 : 5000;
    }

    /**
     * Starts the application, waits until its stream thread has processed {@code records} input records
     * (and, for a foreign-key join, whose repartitioned records add to the count, until that count has
     * stopped moving), then closes it: a clean close commits every task, which flushes its caches.
     */
    private void runSegment(final Topology topology, final Properties config, final int records,
                            final String join) throws Failure {
        final KafkaStreams streams = new KafkaStreams(topology, config);
        final AtomicReference<Throwable> crashed = new AtomicReference<>();
        onUncaughtException(streams, crashed);
        final long started = System.currentTimeMillis();
        boolean closed = false;
        try {
            streams.start();
            final long deadline = started + timeoutMs;
            double seen = -1;
            long stableSince = System.currentTimeMillis();
            while (true) {
                if (crashed.get() != null) {
                    throw new Failure("the stream thread died: " + Main.describe(crashed.get()));
                }
                if (streams.state() == KafkaStreams.State.ERROR || streams.state() == KafkaStreams.State.NOT_RUNNING) {
                    throw new Failure("the application stopped in state " + streams.state());
                }
                final double processed = processed(streams);
                final long now = System.currentTimeMillis();
                if (processed != seen) {
                    seen = processed;
                    stableSince = now;
                }
                final boolean settled = !join.equals("fk") || now - stableSince >= 3000;
                if (processed >= records && settled) {
                    break;
                }
                if (now > deadline) {
                    throw new Failure("processed " + (long) Math.max(processed, 0) + " of " + records
                                      + " records in " + timeoutMs / 1000 + " s");
                }
                Thread.sleep(50);
            }
            log.println("processed " + (long) seen + " records in " + (System.currentTimeMillis() - started) + " ms");
            final long closing = System.currentTimeMillis();
            closed = streams.close(Duration.ofSeconds(60));
            log.println("closed in " + (System.currentTimeMillis() - closing) + " ms");
            if (!closed) {
                throw new Failure("the application did not close within 60 s");
            }
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new Failure("interrupted");
        } finally {
            if (!closed) {
                streams.close(Duration.ofSeconds(10));
            }
        }
        if (crashed.get() != null) {
            throw new Failure("the stream thread died: " + Main.describe(crashed.get()));
        }
    }

    /** The stream thread's {@code process-total}: records it has processed since the instance started. */
    private static double processed(final KafkaStreams streams) {
        double total = 0;
        boolean found = false;
        for (final Map.Entry<MetricName, ? extends Metric> e : streams.metrics().entrySet()) {
            final MetricName name = e.getKey();
            if (name.name().equals("process-total") && name.group().contains("thread")) {
                final Object value = e.getValue().metricValue();
                if (value instanceof Number) {
                    total += ((Number) value).doubleValue();
                    found = true;
                }
            }
        }
        return found ? total : -1;
    }

    /**
     * Records a stream thread's death in {@code crashed} (its stack trace goes to the log): the
     * {@code StreamsUncaughtExceptionHandler} from 2.8 on (asking to shut the client down), the thread handler
     * before; reached by reflection so that one source compiles against every release.
     */
    private void onUncaughtException(final KafkaStreams streams, final AtomicReference<Throwable> crashed) {
        try {
            final Class<?> handler = Class.forName(
                "org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler");
            final Class<?> response = Class.forName(handler.getName()
                                                    + "$StreamThreadExceptionResponse");
            final Object shutdown = Enum.valueOf(response.asSubclass(Enum.class), "SHUTDOWN_CLIENT");
            final Object proxy = Proxy.newProxyInstance(handler.getClassLoader(), new Class<?>[] {handler},
                (self, method, args) -> {
                    if (method.getName().equals("handle")) {
                        final Throwable ex = (Throwable) args[0];
                        ex.printStackTrace(log);
                        crashed.compareAndSet(null, ex);
                        return shutdown;
                    }
                    return method.getDeclaringClass() == Object.class ? objectMethod(self, method, args) : null;
                });
            final Method set = KafkaStreams.class.getMethod("setUncaughtExceptionHandler", handler);
            set.invoke(streams, proxy);
        } catch (final ReflectiveOperationException newApiMissing) {
            final Thread.UncaughtExceptionHandler old = (thread, ex) -> {
                ex.printStackTrace(log);
                crashed.compareAndSet(null, ex);
            };
            try {
                KafkaStreams.class.getMethod("setUncaughtExceptionHandler", Thread.UncaughtExceptionHandler.class)
                    .invoke(streams, old);
            } catch (final ReflectiveOperationException ex) {
                throw new IllegalStateException("no uncaught exception handler API in this release", ex);
            }
        }
    }

    private static Object objectMethod(final Object self, final Method method, final Object[] args) {
        switch (method.getName()) {
            case "hashCode":
                return System.identityHashCode(self);
            case "equals":
                return self == args[0];
            default:
                return "kjoin uncaught exception handler";
        }
    }

    /** Every record of the output topic, partition by partition in offset order. */
    private List<Object> readOutputs(final Joins joins) throws Failure {
        final Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        final List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            all.add(new TopicPartition(joins.outputTopic, p));
        }
        final Map<Integer, List<ConsumerRecord<byte[], byte[]>>> byPartition = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                 new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(all);
            consumer.seekToBeginning(all);
            final Map<TopicPartition, Long> ends = consumer.endOffsets(all);
            final long deadline = System.currentTimeMillis() + timeoutMs;
            while (!all.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp))) {
                if (System.currentTimeMillis() > deadline) {
                    throw new Failure("could not read the output topic back within " + timeoutMs / 1000 + " s");
                }
                for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    byPartition.computeIfAbsent(record.partition(), p -> new ArrayList<>()).add(record);
                }
            }
        }
        final Serde<Object> keys = joins.leftKeys.serde();
        final List<Object> outputs = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            for (final ConsumerRecord<byte[], byte[]> record
                 : byPartition.getOrDefault(p, Collections.emptyList())) {
                final Object key = record.key() == null ? null
                    : keys.deserializer().deserialize(joins.outputTopic, record.key());
                final String value = record.value() == null ? null
                    : new String(record.value(), StandardCharsets.UTF_8);
                final Map<String, Object> out = Main.output(key, value, record.timestamp());
                out.put("partition", (long) p);
                out.put("offset", record.offset());
                outputs.add(out);
            }
        }
        return outputs;
    }
}
