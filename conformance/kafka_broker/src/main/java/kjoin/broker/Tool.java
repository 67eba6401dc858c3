package kjoin.broker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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
 *                                          null: produced as null), in input order; flush, print the count
 * </pre>
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
                sent.add(producer.send(new ProducerRecord<>(
                        record.get("topic").asText(),
                        record.get("partition").asInt(),
                        record.get("ts").asLong(),
                        text(record.get("key")),
                        text(record.get("value")))));
            }
            producer.flush();
            for (Future<RecordMetadata> each : sent) {
                each.get(); // a failed send fails the tool
            }
        }
        System.out.println("produced " + sent.size());
    }

    private static String text(JsonNode node) {
        return node == null || node.isNull() ? null : node.asText();
    }
}
