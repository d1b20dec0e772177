package io.ringwire.messaging;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static io.ringwire.messaging.PubSubTestSupport.await;
import static io.ringwire.messaging.PubSubTestSupport.channel;
import static io.ringwire.messaging.PubSubTestSupport.context;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A subscription whose connection listener is flooded (70 silent management connections from
 * another host, each reopened as soon as it is closed) still accepts a genuine publication within
 * two seconds, on every provider: pending handshakes are bounded per source address, so the flood
 * holds at most its share of them, and the subscription's polling never waits on any of them.
 */
class ConnectionFloodTest
{
    private static final int STREAM = 51;
    private static final int FLOODERS = 70;
    private static final Duration CONNECT_LIMIT = Duration.ofSeconds(2);

    @TempDir
    Path directory;

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aPublicationConnectsWithinTwoSecondsWhileSilentConnectionsFloodTheSubscription(final String provider)
        throws Exception
    {
        final MessagingContext context = context(directory);
        final InetAddress flooder = InetAddress.getByName("127.0.0.2");
        // Platform threads, as another process's would be: the flood takes none of the carrier threads
        // the subscription's handshakes run on, as an attacker elsewhere could not.
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM);
            ExecutorService executor = Executors.newThreadPerTaskExecutor(Thread.ofPlatform().daemon().factory()))
        {
            final AtomicBoolean flooding = new AtomicBoolean(true);
            final AtomicLong opened = new AtomicLong();
            try
            {
                for (int i = 0; i < FLOODERS; i++)
                {
                    executor.submit(() -> flood(subscription.endpoint(), flooder, flooding, opened));
                }
                await(() -> opened.get() >= FLOODERS, Duration.ofSeconds(10), "the flood's connections",
                    subscription::doWork);

                try (Publication publication = Publication.open(context,
                    channel(provider, subscription.endpoint().getPort()), STREAM))
                {
                    // Timed from the open's return: the handshake under the flood, not the device's
                    // set-up in this process.
                    final long start = System.nanoTime();
                    await(() -> publication.isConnected() && subscription.imageCount() == 1, Duration.ofSeconds(30),
                        "the publication's connection", () ->
                        {
                            subscription.doWork();
                            publication.doWork();
                        });
                    final long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    System.out.printf("[%s] connected in %d ms under a flood of %d silent connections%n", provider,
                        tookMs, opened.get());
                    assertTrue(tookMs < CONNECT_LIMIT.toMillis(), provider + ": the publication connected only after " +
                        tookMs + " ms of flood (" + opened.get() + " silent connections opened)");
                }
                assertTrue(subscription.listenerCounters().refusedPerSource() > 0,
                    "the flood never reached its per-source limit: " + subscription.listenerCounters());
            }
            finally
            {
                flooding.set(false);
            }
        }
    }

    /** One flooder: connects, holds the connection without a word until it is closed, and reconnects. */
    private static Void flood(final InetSocketAddress listener, final InetAddress from, final AtomicBoolean flooding,
        final AtomicLong opened)
    {
        final byte[] ignored = new byte[256];
        while (flooding.get())
        {
            try (Socket socket = new Socket())
            {
                socket.bind(new InetSocketAddress(from, 0));
                socket.connect(listener, 1000);
                opened.incrementAndGet();
                socket.setSoTimeout(200);
                while (flooding.get())
                {
                    try
                    {
                        if (socket.getInputStream().read(ignored) < 0)
                        {
                            break; // closed by the listener: reconnect
                        }
                    }
                    catch (final SocketTimeoutException ex)
                    {
                        // still silent, still held
                    }
                }
            }
            catch (final IOException ex)
            {
                // refused or reset: reconnect
            }
        }
        return null;
    }
}
