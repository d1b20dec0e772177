package io.ringwire.perf.baseline.aeron;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.CloseHelper;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One side of the {@code aeron-ipc} baseline: an Aeron client, the exclusive publication it pings
 * (or echoes) on and the subscription it hears the other side on, both over {@code aeron:ipc}, the
 * transport an Aeron user picks for same-host messaging. The pinger publishes on
 * {@link #PING_STREAM} and subscribes to {@link #ECHO_STREAM}; the ponger the other way round.
 *
 * <p>The media driver ({@link #launchDriver}) runs in the ponger's process, or in the one process:
 * its conductor is off the IPC data path (an IPC publication writes the subscriber's log buffer
 * directly), so it runs SHARED and sleeps 1 ms when idle instead of spinning, which would take a
 * core from the pinger or the ponger on a 2-CPU machine (a backoff strategy's microsecond parks
 * would wake it on their cores so often that the spinners' tails carry its wake-ups). The clients'
 * conductors use Aeron's default sleeping idle strategy; all of this is what an Aeron IPC user runs.
 *
 * <p>The {@code aeron-udp} baseline uses the same sides over {@code aeron:udp} on 127.0.0.1
 * ({@link UdpPorts}), through the driver {@code AeronUdpDriver} lays out.
 *
 * <p>Threading: created and closed on the control thread; the publication and subscription are
 * then used by one spinning thread.
 */
public final class AeronIpcSide implements AutoCloseable
{
    /** Stream the pinger publishes its pings on. */
    static final int PING_STREAM = 1001;
    /** Stream the ponger echoes on. */
    static final int ECHO_STREAM = 1002;
    /** The channel both streams use; {@link #channel(int)} adds the term length. */
    static final String CHANNEL = "aeron:ipc";
    /**
     * Smallest term used: an IPC publication may run half a term ahead of the limit the driver's
     * conductor last set, so with a conductor that sleeps 1 ms a term must hold several milliseconds
     * of pings (4 MiB: some 30,000 small ones), or the pinger waits for the conductor.
     */
    private static final int MIN_TERM_LENGTH = 4 * 1024 * 1024;
    /** Large messages: at least this many fit in the half term a publication may run ahead. */
    private static final int MESSAGES_PER_HALF_TERM = 16;
    /** Fragments handled per poll. */
    static final int FRAGMENT_LIMIT = 16;
    /** Bytes of Aeron's frame header. */
    private static final int FRAME_HEADER_LENGTH = 32;
    private static final long CONNECT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);
    private static final long CONNECT_PAUSE_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * The loopback ports of the {@code aeron-udp} streams: the ponger's subscription listens on
     * {@code pingPort}, the pinger's on {@code echoPort}.
     *
     * @param pingPort port of the ping stream.
     * @param echoPort port of the echo stream.
     */
    public record UdpPorts(int pingPort, int echoPort)
    {
        /**
         * @return two ports free a moment ago (taken by binding and closing; the driver binds them next).
         */
        public static UdpPorts free()
        {
            return new UdpPorts(freePort(), freePort());
        }

        /**
         * @return {@code pingPort:echoPort}, as the ponger process sends it.
         */
        public String toValue()
        {
            return pingPort + ":" + echoPort;
        }

        /**
         * @param value {@link #toValue()}'s text.
         * @return the ports.
         */
        public static UdpPorts parse(final String value)
        {
            final int colon = value.indexOf(':');
            return new UdpPorts(Integer.parseInt(value.substring(0, colon).trim()),
                Integer.parseInt(value.substring(colon + 1).trim()));
        }

        private static int freePort()
        {
            try (DatagramChannel channel = DatagramChannel.open())
            {
                channel.bind(new InetSocketAddress("127.0.0.1", 0));
                return ((InetSocketAddress)channel.getLocalAddress()).getPort();
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException("aeron-udp: no free loopback port: " + ex.getMessage(), ex);
            }
        }
    }

    private final Aeron aeron;
    final ExclusivePublication publication;
    final Subscription subscription;

    private AeronIpcSide(final Aeron aeron, final ExclusivePublication publication, final Subscription subscription)
    {
        this.aeron = aeron;
        this.publication = publication;
        this.subscription = subscription;
    }

    /**
     * @param shmDirectory the benchmark's shm directory.
     * @return a fresh Aeron directory beside the shm provider's files, named after this process.
     */
    public static Path directory(final String shmDirectory)
    {
        return Path.of(shmDirectory).resolveSibling("ringwire-rtt-aeron-" + ProcessHandle.current().pid());
    }

    /**
     * Starts an embedded media driver in this process.
     *
     * @param directory the Aeron directory (deleted on start and on close).
     * @return the driver; close it after both sides closed.
     */
    public static MediaDriver launchDriver(final Path directory)
    {
        return MediaDriver.launch(driverContext(directory)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new SleepingMillisIdleStrategy(1)));
    }

    /**
     * @param directory the Aeron directory.
     * @return what every driver of the baselines shares: its directory, fresh on start and deleted
     *         on close, with no warning for one left by a run that was killed.
     */
    static MediaDriver.Context driverContext(final Path directory)
    {
        return new MediaDriver.Context()
            .aeronDirectoryName(directory.toString())
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .warnIfDirectoryExists(false);
    }

    /**
     * The channel for messages of {@code messageLength} bytes: {@link #MIN_TERM_LENGTH}, or for large
     * messages a term whose half holds {@link #MESSAGES_PER_HALF_TERM} of them (Aeron itself takes
     * messages up to an eighth of a term), rather than the default 64 MiB in /dev/shm per stream.
     *
     * @param messageLength bytes per message.
     * @return the channel URI.
     */
    public static String channel(final int messageLength)
    {
        final int termLength = Math.max(MIN_TERM_LENGTH,
            BitUtil.findNextPositivePowerOfTwo(MESSAGES_PER_HALF_TERM * 2 * (messageLength + FRAME_HEADER_LENGTH)));
        return CHANNEL + "?term-length=" + termLength;
    }

    /**
     * @param messageLength bytes per message.
     * @return a buffer for one message, cache-line aligned, for the pinger's pings or the ponger's
     *         echoes.
     */
    public static UnsafeBuffer messageBuffer(final int messageLength)
    {
        return new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            BitUtil.align(messageLength, BitUtil.CACHE_LINE_LENGTH), BitUtil.CACHE_LINE_LENGTH));
    }

    /**
     * Connects a client to a driver of this process and adds this side's streams.
     *
     * @param driver        the driver.
     * @param pinger        true for the pinger's side, false for the ponger's.
     * @param messageLength bytes per message.
     * @return the side.
     */
    public static AeronIpcSide open(final MediaDriver driver, final boolean pinger, final int messageLength)
    {
        return open(Path.of(driver.aeronDirectoryName()), pinger, messageLength);
    }

    /**
     * Connects a client to the driver of {@code directory} and adds this side's streams.
     *
     * @param directory     the driver's Aeron directory.
     * @param pinger        true for the pinger's side, false for the ponger's.
     * @param messageLength bytes per message.
     * @return the side.
     */
    public static AeronIpcSide open(final Path directory, final boolean pinger, final int messageLength)
    {
        return open(directory, pinger, messageLength, null);
    }

    /**
     * Connects a client to the driver of {@code directory} and adds this side's streams over UDP on
     * 127.0.0.1, or over IPC when {@code udpPorts} is null.
     *
     * @param directory     the driver's Aeron directory.
     * @param pinger        true for the pinger's side, false for the ponger's.
     * @param messageLength bytes per message.
     * @param udpPorts      the streams' ports, or null for {@code aeron:ipc}.
     * @return the side.
     */
    public static AeronIpcSide open(final Path directory, final boolean pinger, final int messageLength,
        final UdpPorts udpPorts)
    {
        // Pre-touched: the first write to each page of a mapped log is otherwise a page fault in the
        // middle of the run (one every 64 small messages until the log has been written through once).
        final Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(directory.toString())
            .preTouchMappedMemory(true));
        try
        {
            final String publicationChannel;
            final String subscriptionChannel;
            if (null == udpPorts)
            {
                publicationChannel = channel(messageLength);
                subscriptionChannel = CHANNEL;
            }
            else
            {
                final int publishTo = pinger ? udpPorts.pingPort() : udpPorts.echoPort();
                final int listenOn = pinger ? udpPorts.echoPort() : udpPorts.pingPort();
                publicationChannel = channel(messageLength).replace(CHANNEL + "?",
                    "aeron:udp?endpoint=127.0.0.1:" + publishTo + "|");
                subscriptionChannel = "aeron:udp?endpoint=127.0.0.1:" + listenOn;
            }
            final ExclusivePublication publication =
                aeron.addExclusivePublication(publicationChannel, pinger ? PING_STREAM : ECHO_STREAM);
            final Subscription subscription =
                aeron.addSubscription(subscriptionChannel, pinger ? ECHO_STREAM : PING_STREAM);
            return new AeronIpcSide(aeron, publication, subscription);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietClose(aeron);
            throw ex;
        }
    }

    /**
     * Waits until the other side's subscription hears this side's publication and this side's
     * subscription has the other side's image.
     *
     * @throws IllegalStateException after {@link #CONNECT_TIMEOUT_NS}.
     */
    public void awaitConnected()
    {
        final long deadlineNs = System.nanoTime() + CONNECT_TIMEOUT_NS;
        while (!publication.isConnected() || subscription.imageCount() == 0)
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new IllegalStateException("aeron: not connected both ways within " +
                    TimeUnit.NANOSECONDS.toSeconds(CONNECT_TIMEOUT_NS) + " s (publication connected: " +
                    publication.isConnected() + ", images: " + subscription.imageCount() + ")");
            }
            LockSupport.parkNanos(CONNECT_PAUSE_NS);
        }
    }

    @Override
    public void close()
    {
        CloseHelper.quietCloseAll(publication, subscription, aeron);
    }
}
