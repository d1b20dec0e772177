package io.ringwire.perf.jmh;

import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.Header;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

/**
 * A messaging publication over the shm provider offering one message, and its subscription polling
 * it, on one thread: the CPU both ends cost per message with no other thread and no cross-core
 * traffic in between (the ping-pong in {@code perf rtt} adds those). Each operation offers once
 * (polling to return credit while the ring is full) and polls until the message is handed over.
 *
 * <p>Threading: one benchmark thread per state; the publication and subscription are used by it alone.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ShmPublicationBenchmark implements FragmentHandler
{
    private static final int STREAM_ID = 91;
    private static final int MESSAGE_LENGTH = 64;
    private static final int RING = 1 << 20;
    private static final long CONNECT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    private final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE_LENGTH));
    private Path shmDirectory;
    private Subscription subscription;
    private Publication publication;
    private long received;

    /**
     * Opens a subscription and a publication to it over shm in a fresh directory and drives both
     * until they are connected.
     *
     * @throws IOException when the directory cannot be made.
     */
    @Setup(Level.Trial)
    public void connect() throws IOException
    {
        shmDirectory = Files.createTempDirectory("ringwire-jmh-shm");
        final byte[] secret = new byte[16];
        new SecureRandom().nextBytes(secret);
        final MessagingContext context = new MessagingContext()
            .secret(HexFormat.of().formatHex(secret))
            .rdmaSettings(config -> config.shmDirectory(shmDirectory.toString()))
            .conclude();
        subscription = Subscription.open(context, "ringwire:shm?endpoint=127.0.0.1:0|ring=" + RING, STREAM_ID);
        publication = Publication.open(context, "ringwire:shm?endpoint=127.0.0.1:" +
            subscription.endpoint().getPort() + "|ring=" + RING, STREAM_ID);
        final long deadlineNs = System.nanoTime() + CONNECT_TIMEOUT_NS;
        while (!publication.isConnected() || subscription.imageCount() == 0)
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new IllegalStateException("shm publication not connected within 30 s");
            }
            subscription.poll(this, 16);
            subscription.doWork();
            publication.doWork();
        }
    }

    /**
     * Closes both ends and removes the directory.
     *
     * @throws IOException when the directory cannot be removed.
     */
    @TearDown(Level.Trial)
    public void close() throws IOException
    {
        CloseHelper.closeAll(publication, subscription);
        try (var files = Files.walk(shmDirectory))
        {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    /**
     * @return the messages received so far.
     */
    @Benchmark
    public long offerThenPoll()
    {
        while (publication.offer(message, 0, MESSAGE_LENGTH) < 0)
        {
            subscription.poll(this, 16);
            publication.doWork();
        }
        final long expected = received + 1;
        while (received < expected)
        {
            if (subscription.poll(this, 16) == 0)
            {
                publication.doWork();
            }
        }
        return received;
    }

    @Override
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        received++;
    }
}
