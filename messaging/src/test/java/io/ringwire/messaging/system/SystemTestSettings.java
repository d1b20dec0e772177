package io.ringwire.messaging.system;

import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import io.ringwire.rdma.RdmaConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The messaging settings one system test shares between its own JVM and the child JVMs it starts:
 * the parent builds a {@link MessagingContext} with the setters, a child gets the same values as
 * {@code ringwire.*} system properties (which the context's defaults read), so both ends agree on
 * the secret, the shm directory and the timeouts.
 *
 * @param directory           per-test directory holding the shm files and the counters files.
 * @param heartbeatIntervalMs publications' heartbeat and subscriptions' credit-as-heartbeat interval.
 * @param livenessTimeoutMs   a peer silent this long is gone.
 * @param reconnectIntervalMs a disconnected publication retries this often.
 * @param peerTimeoutMs       the providers' own dead-peer timeout.
 */
record SystemTestSettings(Path directory, long heartbeatIntervalMs, long livenessTimeoutMs, long reconnectIntervalMs,
    long peerTimeoutMs)
{
    static final String SECRET = "system-test-secret";
    /**
     * A fraction of the message counts the volume tests send (default 1: all of them). The Soft-RoCE
     * lab sets 0.25: its emulated CPU moves messages many times more slowly than a real one, and
     * more slowly and unevenly still on a busy host, against time limits made for real machines
     * (docs/softroce-lab.md).
     */
    static final String VOLUME_PROP = "ringwire.test.volume";

    /**
     * How much longer than on a real machine the system tests wait for child processes (default 1).
     * The Soft-RoCE lab sets 3: its emulated CPU starts a JVM in several seconds, and with each JVM
     * kept on one vCPU there, a publisher starting next to three subscribers can take longer than
     * the 30 s the fan-out test gives its CONNECTED line before scaling.
     */
    static final String WAIT_SCALE_PROP = "ringwire.test.wait.scale";

    /**
     * @param wait how long a test waits for a child on a real machine.
     * @return that wait scaled by {@value #WAIT_SCALE_PROP}.
     */
    static Duration patient(final Duration wait)
    {
        final double scale = Double.parseDouble(System.getProperty(WAIT_SCALE_PROP, "1"));
        if (!(scale >= 1 && scale <= 20))
        {
            throw new IllegalArgumentException(WAIT_SCALE_PROP + " must be in [1, 20]: " + scale);
        }
        return Duration.ofNanos((long)(wait.toNanos() * scale));
    }

    /**
     * @param count the messages a test sends on a real machine.
     * @return that count scaled by {@value #VOLUME_PROP}, at least 1000.
     */
    static int volume(final int count)
    {
        final double fraction = Double.parseDouble(System.getProperty(VOLUME_PROP, "1"));
        if (!(fraction > 0 && fraction <= 1))
        {
            throw new IllegalArgumentException(VOLUME_PROP + " must be in (0, 1]: " + fraction);
        }
        return Math.max(1000, (int)(count * fraction));
    }

    /**
     * @param directory the test's temporary directory.
     * @return the settings most system tests use: 1 s liveness, 50 ms heartbeats and reconnects.
     *         The liveness and peer timeouts scale with {@value #WAIT_SCALE_PROP}: on the lab's
     *         emulated CPU a subscriber starved of its vCPU for a second (a child JVM starting on it)
     *         is slow, not gone, and declaring it gone loses what was in flight to it.
     */
    static SystemTestSettings defaults(final Path directory)
    {
        final long timeoutMs = patient(Duration.ofMillis(1000)).toMillis();
        return new SystemTestSettings(directory, 50, timeoutMs, 50, timeoutMs);
    }

    /**
     * @param directory the test's temporary directory.
     * @return settings for tests that are not about liveness: 5 s liveness and peer timeouts, so a
     *         process starved of CPU for a moment on a loaded 2-core machine is not declared dead.
     */
    static SystemTestSettings tolerant(final Path directory)
    {
        final long timeoutMs = patient(Duration.ofMillis(5000)).toMillis();
        return new SystemTestSettings(directory, 50, timeoutMs, 50, timeoutMs);
    }

    Path shmDirectory()
    {
        return directory.resolve("shm");
    }

    Path countersDirectory()
    {
        return directory.resolve("counters");
    }

    /**
     * @return a concluded context for this JVM.
     */
    MessagingContext context()
    {
        return unconcludedContext().conclude();
    }

    /**
     * @return this JVM's context, for a test to set more on before it concludes it.
     */
    MessagingContext unconcludedContext()
    {
        return new MessagingContext().secret(SECRET).countersDirectory(countersDirectory().toString())
            .heartbeatIntervalMs(heartbeatIntervalMs).livenessTimeoutMs(livenessTimeoutMs)
            .reconnectIntervalMs(reconnectIntervalMs)
            .rdmaSettings(config -> config.shmDirectory(shmDirectory().toString()).peerTimeoutMs(peerTimeoutMs));
    }

    /**
     * @return the same settings as JVM options for a child process.
     */
    List<String> systemProperties()
    {
        return List.of(
            "-D" + MessagingContext.SECRET_PROP + "=" + SECRET,
            "-D" + MessagingContext.COUNTERS_DIR_PROP + "=" + countersDirectory(),
            "-D" + MessagingContext.HEARTBEAT_INTERVAL_PROP + "=" + heartbeatIntervalMs,
            "-D" + MessagingContext.LIVENESS_TIMEOUT_PROP + "=" + livenessTimeoutMs,
            "-D" + MessagingContext.RECONNECT_INTERVAL_PROP + "=" + reconnectIntervalMs,
            "-D" + RdmaConfig.SHM_DIRECTORY_PROP + "=" + shmDirectory(),
            "-D" + RdmaConfig.PEER_TIMEOUT_PROP + "=" + peerTimeoutMs);
    }

    /**
     * The largest frame payload a publication of this provider and ring has: an eighth of the ring
     * minus a frame header, or less when the provider's largest message is smaller.
     *
     * @param context  a concluded context.
     * @param provider shm, socket or roce.
     * @param ring     the ring capacity.
     * @return {@code Publication.maxPayloadLength()} of such a publication.
     */
    static int maxPayloadLength(final MessagingContext context, final String provider, final int ring)
    {
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), 999);
             Publication publication = Publication.open(context,
                 channel(provider, subscription.endpoint().getPort()) + "|ring=" + ring, 999))
        {
            return publication.maxPayloadLength();
        }
    }

    /**
     * @param provider shm, socket or roce.
     * @param port     the subscriber's port (0 for a subscription: any free port).
     * @return the channel.
     */
    static String channel(final String provider, final int port)
    {
        return "ringwire:" + provider + "?endpoint=127.0.0.1:" + port;
    }
}
