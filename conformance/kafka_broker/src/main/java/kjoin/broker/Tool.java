package kjoin.broker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The end-to-end mode's helper on a running broker.
 *
 * <pre>
 *   create BOOTSTRAP NAME:PARTITIONS ...   create topics (replication factor 1), wait until they exist
 *   produce BOOTSTRAP                      produce JSON lines from stdin, each
 *                                          {"topic", "partition", "ts", "key", "value"} (key/value may be
 *                                          null: produced as null) and optionally "headers" (an object of
 *                                          string values), in input order; a line {"flush": true} waits until
 *                                          everything sent so far is acknowledged and prints "produced N" (N
 *                                          records so far); at the end of the input the same
 * </pre>
 *
 * So one tool process can feed a running job step by step: write a step's records and a flush line, read
 * the "produced" line back, let the job process them, write the next step.
 *
 * Records keep their partition and timestamp (CreateTime): Spark's Kafka sink cannot set either the way a
 * scenario needs. Exit code 0 on success, 1 with a message on stderr otherwise.
 */
public final class Tool {
    private Tool() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: Tool create BOOTSTRAP NAME:PARTITIONS ... | Tool produce BOOTSTRAP");
            System.exit(2);
        }
        try {
            switch (args[0]) {
                case "create" -> create(args[1], List.of(args).subList(2, args.length));
                case "produce" -> produce(args[1]);
                default -> {
                    System.err.println("unknown command " + args[0]);
                    System.exit(2);
                }
            }
        } catch (Exception error) {
            System.err.println("kjoin broker tool: " + error);
            System.exit(1);
        }
    }

    private static void create(String bootstrap, List<String> topics) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        List<NewTopic> wanted = new ArrayList<>();
        for (String topic : topics) {
            int colon = topic.lastIndexOf(':');
            wanted.add(new NewTopic(topic.substring(0, colon), Integer.parseInt(topic.substring(colon + 1)), (short) 1));
        }
        try (Admin admin = Admin.create(props)) {
            admin.createTopics(wanted).all().get();
        }
        System.out.println("created " + wanted.size());
    }

    private static void produce(String bootstrap) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        // One request in flight: the harness produces right after creating the topics, and the broker may
        // answer NOT_LEADER_OR_FOLLOWER for a partition its metadata already names it the leader of but it
        // has not created yet. With several requests in flight a later batch (sequence n > 0) could reach
        // the created partition first and be taken (a broker with no producer state there takes any first
        // sequence, KAFKA-15591), and every retry of the first batch would then be refused as out of order
        // until the delivery timeout (120 s here). With one, a refused batch is retried before the next is
        // sent (docs/kafka.md, "Producing to new topics: one request in flight").
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        ObjectMapper json = new ObjectMapper();
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer =
                        new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
                BufferedReader input =
                        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = input.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode record = json.readTree(line);
                if (record.path("flush").asBoolean(false)) {
                    acknowledged(producer, sent);
                    continue;
                }
                ProducerRecord<String, String> out = new ProducerRecord<>(
                        record.get("topic").asText(),
                        record.get("partition").asInt(),
                        record.get("ts").asLong(),
                        text(record.get("key")),
                        text(record.get("value")));
                JsonNode headers = record.path("headers");
                for (Iterator<Map.Entry<String, JsonNode>> it = headers.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> header = it.next();
                    out.headers().add(header.getKey(), header.getValue().asText().getBytes(StandardCharsets.UTF_8));
                }
                sent.add(producer.send(out));
            }
            acknowledged(producer, sent);
        }
    }

    /** Flush, wait for every record sent so far (a failed send fails the tool), print how many. */
    private static void acknowledged(KafkaProducer<String, String> producer, List<Future<RecordMetadata>> sent)
            throws Exception {
        producer.flush();
        for (Future<RecordMetadata> each : sent) {
            each.get();
        }
        System.out.println("produced " + sent.size());
        System.out.flush();
    }

    private static String text(JsonNode node) {
        return node == null || node.isNull() ? null : node.asText();
    }
}
