package kjoin.driver;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Properties;

import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.Joined;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.Stores;

/**
 * The Kafka Streams APIs that appear or disappear between 2.4 and 4.3, reached by reflection so that one
 * source compiles against every version. A missing API raises {@link Unsupported}, whose message becomes
 * the scenario's error line.
 */
final class Compat {

    /** The Kafka version this build lacks a needed API in; the message says which and why. */
    static final class Unsupported extends Exception {
        private static final long serialVersionUID = 1L;

        Unsupported(final String message) {
            super(message);
        }
    }

    /** The kafka-streams version this driver was built against (from the Maven build). */
    static final String KAFKA_VERSION = builtVersion();

    private Compat() {
    }

    private static String builtVersion() {
        try (InputStream in = Compat.class.getResourceAsStream("build.properties")) {
            final Properties props = new Properties();
            if (in != null) {
                props.load(in);
            }
            return props.getProperty("kafka.version", "unknown");
        } catch (final IOException ex) {
            return "unknown";
        }
    }

    private static Method method(final Class<?> owner, final String name, final Class<?>... params) {
        try {
            return owner.getMethod(name, params);
        } catch (final NoSuchMethodException ex) {
            return null;
        }
    }

    private static Object call(final Method method, final Object target, final Object... args) {
        try {
            return method.invoke(target, args);
        } catch (final IllegalAccessException ex) {
            throw new IllegalStateException(ex);
        } catch (final InvocationTargetException ex) {
            final Throwable cause = ex.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new IllegalStateException(cause);
        }
    }

    private static final Method JOIN_WINDOWS_OF = method(JoinWindows.class, "of", Duration.class);
    private static final Method JOIN_WINDOWS_GRACE = method(JoinWindows.class, "grace", Duration.class);
    private static final Method TIME_DIFFERENCE_AND_GRACE =
        method(JoinWindows.class, "ofTimeDifferenceAndGrace", Duration.class, Duration.class);
    private static final Method JOINED_WITH_GRACE = method(Joined.class, "withGracePeriod", Duration.class);
    private static final Method VERSIONED_STORE =
        method(Stores.class, "persistentVersionedKeyValueStore", String.class, Duration.class);

    /**
     * The internal config of the emit interval of left/outer stream-stream joins' held (non-joined) results,
     * read by the join since KAFKA-10847 (3.0.0); earlier releases emit such results eagerly and have no
     * interval.
     */
    static final String EMIT_INTERVAL_CONFIG = "__emit.interval.ms.kstreams.outer.join.spurious.results.fix__";

    /** Whether this release reads {@link #EMIT_INTERVAL_CONFIG} (its constant exists from 3.0.0 on). */
    static final boolean HAS_EMIT_INTERVAL = hasField("org.apache.kafka.streams.StreamsConfig$InternalConfig",
                                                      "EMIT_INTERVAL_MS_KSTREAMS_OUTER_JOIN_SPURIOUS_RESULTS_FIX");

    private static boolean hasField(final String owner, final String name) {
        try {
            Class.forName(owner).getField(name);
            return true;
        } catch (final ClassNotFoundException | NoSuchFieldException ex) {
            return false;
        }
    }

    /** Refuses an emit interval other than 0 where the release has none (before 3.0). */
    static void requireEmitInterval(final long emitIntervalMs) throws Unsupported {
        if (emitIntervalMs != 0 && !HAS_EMIT_INTERVAL) {
            throw new Unsupported("Kafka Streams " + KAFKA_VERSION + " has no emit interval for held left/outer "
                                  + "stream-stream results (KAFKA-10847, 3.0+); settings.emit_interval_ms must "
                                  + "be 0");
        }
    }

    /** The legacy {@code JoinWindows.of(before)} (deprecated in 3.0). */
    static JoinWindows legacyOf(final long before) throws Unsupported {
        if (JOIN_WINDOWS_OF == null) {
            throw new Unsupported("Kafka Streams " + KAFKA_VERSION + " has no JoinWindows.of(Duration) "
                                  + "(the legacy window, grace: null or legacy: true)");
        }
        return (JoinWindows) call(JOIN_WINDOWS_OF, null, Duration.ofMillis(before));
    }

    /** The deprecated {@code windows.grace(grace)} of the legacy API. */
    static JoinWindows legacyGrace(final JoinWindows windows, final long grace) throws Unsupported {
        if (JOIN_WINDOWS_GRACE == null) {
            throw new Unsupported("Kafka Streams " + KAFKA_VERSION + " has no JoinWindows#grace(Duration) "
                                  + "(legacy: true with a grace)");
        }
        return (JoinWindows) call(JOIN_WINDOWS_GRACE, windows, Duration.ofMillis(grace));
    }

    /** Whether {@code JoinWindows.ofTimeDifferenceAndGrace} exists (3.1+; the 3.0 release lacks it). */
    static boolean hasTimeDifferenceAndGrace() {
        return TIME_DIFFERENCE_AND_GRACE != null;
    }

    /** {@code JoinWindows.ofTimeDifferenceAndGrace(before, grace)}; check {@link #hasTimeDifferenceAndGrace}. */
    static JoinWindows timeDifferenceAndGrace(final long before, final long grace) {
        return (JoinWindows) call(TIME_DIFFERENCE_AND_GRACE, null, Duration.ofMillis(before),
                                  Duration.ofMillis(grace));
    }

    /** KIP-923 (3.6+): {@code joined.withGracePeriod(grace)}. */
    @SuppressWarnings("unchecked")
    static <K> Joined<K, String, String> withGracePeriod(final Joined<K, String, String> joined, final long grace)
        throws Unsupported {
        if (JOINED_WITH_GRACE == null) {
            throw new Unsupported("Kafka Streams " + KAFKA_VERSION + " has no Joined#withGracePeriod "
                                  + "(stream-table grace, KIP-923, 3.6+)");
        }
        return (Joined<K, String, String>) call(JOINED_WITH_GRACE, joined, Duration.ofMillis(grace));
    }

    /** KIP-889 (3.5+): {@code Stores.persistentVersionedKeyValueStore(name, history)}. */
    static KeyValueBytesStoreSupplier versionedStore(final String name, final long historyMs) throws Unsupported {
        if (VERSIONED_STORE == null) {
            throw new Unsupported("Kafka Streams " + KAFKA_VERSION + " has no versioned stores "
                                  + "(Stores.persistentVersionedKeyValueStore, KIP-889, 3.5+)");
        }
        return (KeyValueBytesStoreSupplier) call(VERSIONED_STORE, null, name, Duration.ofMillis(historyMs));
    }
}
