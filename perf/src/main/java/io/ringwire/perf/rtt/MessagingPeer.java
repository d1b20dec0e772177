package io.ringwire.perf.rtt;

import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import io.ringwire.messaging.protocol.FrameDescriptor;
import io.ringwire.perf.host.SpinningTask;
import io.ringwire.perf.host.WatchedConnection;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.rdma.RdmaException;
import org.agrona.CloseHelper;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * One side of the messaging ping-pong: a {@link Subscription} on 127.0.0.1 (any free port) that the
 * other side's publication connects to, and, once {@link #connectTo} named the other side's port, a
 * {@link Publication} into the other side's subscription. Pings travel pinger publication to ponger
 * subscription, echoes ponger publication to pinger subscription.
 *
 * <p>Connecting: a subscription answers a publication's connection request only from its own
 * {@code poll} (or {@code doWork}), on its polling thread, within the connection manager's step
 * timeout. So while this side's publication connects, this side's subscription must be polled too:
 * {@link #driveConnection()} does both. Waiting in {@code Publication.awaitConnected} alone, with
 * the peer doing the same, leaves both requests unanswered until they time out (both threads wait
 * for a subscription that only they would poll).
 *
 * <p>Threading: opened and connected on the control thread (or the child's main thread), then used
 * by one spinning thread, which takes it over through {@code Thread.start}; closed after that thread
 * ended.
 */
public final class MessagingPeer implements AutoCloseable, WatchedConnection
{
    /** The stream the probes travel on, both ways. */
    static final int STREAM_ID = 90;
    /** How long connecting both ways may take. */
    public static final long CONNECT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    /** Smallest ring; larger probes get a larger one, so a probe always fits one frame. */
    static final int MIN_RING_CAPACITY = 1 << 20;

    private static final FragmentHandler NO_FRAGMENTS_YET = (buffer, offset, length, header) -> { };
    private static final long IDLE_CONNECT_PAUSE_NS = TimeUnit.MICROSECONDS.toNanos(50);

    final MessagingContext context;
    public final Subscription subscription;
    public final String provider;
    public final int messageLength;
    public Publication publication;

    private MessagingPeer(final MessagingContext context, final String provider, final int messageLength)
    {
        this.context = context;
        this.provider = provider;
        this.messageLength = messageLength;
        this.subscription = Subscription.open(context, channel(provider, 0, messageLength), STREAM_ID);
    }

    /**
     * Opens this side's subscription.
     *
     * @param provider     shm, socket, roce or ibverbs.
     * @param shmDirectory the shm provider's directory.
     * @param secret       shared by both sides ({@link #newSecret()}).
     * @param size         the size asked for; probes are {@link LatencyProbeCodec#messageLength(int)}.
     * @return the side, not yet publishing.
     */
    public static MessagingPeer open(final String provider, final String shmDirectory, final String secret, final int size)
    {
        final MessagingContext context = new MessagingContext()
            .secret(secret)
            .livenessTimeoutMs(TimeUnit.NANOSECONDS.toMillis(SpinningTask.PEER_SILENCE_TIMEOUT_NS))
            .rdmaSettings(config -> config.shmDirectory(shmDirectory).peerTimeoutMs(RdmaPeer.PEER_TIMEOUT_MS))
            .conclude();
        return new MessagingPeer(context, provider, LatencyProbeCodec.messageLength(size));
    }

    /**
     * @return a fresh secret for the connection manager's authentication, shared by both sides.
     */
    public static String newSecret()
    {
        final byte[] secret = new byte[16];
        new SecureRandom().nextBytes(secret);
        return HexFormat.of().formatHex(secret);
    }

    /**
     * @param provider      shm, socket, roce or ibverbs.
     * @param port          the subscription's port (0: any).
     * @param messageLength probe length.
     * @return the channel, with a ring large enough for one probe per frame.
     */
    static String channel(final String provider, final int port, final int messageLength)
    {
        final long needed = 8L * (FrameDescriptor.HEADER_LENGTH + messageLength); // a frame is at most 1/8 ring
        final long ring = Math.max(MIN_RING_CAPACITY, Long.highestOneBit(needed - 1) << 1);
        return "ringwire:" + provider + "?endpoint=127.0.0.1:" + port + "|ring=" + ring;
    }

    /**
     * @return the port this side's subscription listens on.
     */
    public int port()
    {
        return subscription.endpoint().getPort();
    }

    /**
     * Opens the publication into the other side's subscription; {@link #driveConnection()} then
     * completes the connection.
     *
     * @param peerPort the other side's {@link #port()}.
     * @throws RdmaException when a probe does not fit one frame of this provider.
     */
    public void connectTo(final int peerPort)
    {
        publication = Publication.open(context, channel(provider, peerPort, messageLength), STREAM_ID);
        if (messageLength > publication.maxPayloadLength())
        {
            throw new RdmaException("a LatencyProbe of " + messageLength + " bytes does not fit one messaging frame " +
                "over " + provider + " (at most " + publication.maxPayloadLength() + " bytes): choose a smaller " +
                "--size");
        }
    }

    /**
     * One connection step: polls the subscription (which accepts the other side's publication) and
     * does the publication's duty work (which adopts its own finished handshake). Fragments polled
     * here are dropped: neither side sends a probe before both sides are connected.
     *
     * @return work done.
     */
    public int driveConnection()
    {
        return subscription.poll(NO_FRAGMENTS_YET, 16) + subscription.doWork() + publication.doWork();
    }

    /**
     * @return true when this side publishes to the other and the other's publication is an image here.
     */
    boolean isConnected()
    {
        return publication.isConnected() && subscription.imageCount() == 1;
    }

    /**
     * @param status a negative result of offer, tryClaim or commit.
     * @return its name, for messages.
     */
    public static String statusName(final long status)
    {
        return switch ((int)status)
        {
            case (int)Publication.NOT_CONNECTED -> "NOT_CONNECTED";
            case (int)Publication.BACK_PRESSURED -> "BACK_PRESSURED";
            case (int)Publication.ADMIN_ACTION -> "ADMIN_ACTION";
            case (int)Publication.CLOSED -> "CLOSED";
            case (int)Publication.MAX_POSITION_EXCEEDED -> "MAX_POSITION_EXCEEDED";
            default -> Long.toString(status);
        };
    }

    /**
     * Heartbeats and liveness while the other side is quiet.
     */
    @Override
    public void onWatch()
    {
        publication.doWork();
    }

    @Override
    public String watchDetail()
    {
        return " (" + connectionState() + ")";
    }

    /**
     * @return what this side still waits for, or its state, for a failure message.
     */
    public String connectionState()
    {
        final String error = publication.lastConnectionError();
        return "publication " + (publication.isConnected() ? "connected" : "not connected" +
            (null == error ? "" : " (" + error + ")")) + ", " + subscription.imageCount() + " image(s)";
    }

    /**
     * Drives both sides of a one-process ping-pong until each publishes to the other.
     *
     * @param pingSide the pinger's side, {@link #connectTo} called.
     * @param pongSide the ponger's side, {@link #connectTo} called.
     * @throws IllegalStateException when that takes longer than {@link #CONNECT_TIMEOUT_NS}.
     */
    public static void connect(final MessagingPeer pingSide, final MessagingPeer pongSide)
    {
        driveUntil(() -> pingSide.driveConnection() + pongSide.driveConnection(),
            () -> pingSide.isConnected() && pongSide.isConnected(),
            () -> pingSide.provider + " messaging: not connected both ways within " +
                TimeUnit.NANOSECONDS.toSeconds(CONNECT_TIMEOUT_NS) + " s: pinger side " +
                pingSide.connectionState() + "; ponger side " + pongSide.connectionState());
    }

    /**
     * Runs connection steps until {@code connected} holds, pausing briefly after a step that found
     * nothing to do; for every way a side connects (both sides in one process, or one side with the
     * other in another process).
     *
     * @param step      one connection step ({@link #driveConnection()}, of one side or both).
     * @param connected whether the connection is complete.
     * @param timedOut  what is still missing, for the failure.
     * @throws IllegalStateException with {@code timedOut}'s message when {@link #CONNECT_TIMEOUT_NS}
     *                               passes first.
     */
    public static void driveUntil(final IntSupplier step, final BooleanSupplier connected, final Supplier<String> timedOut)
    {
        final long deadlineNs = System.nanoTime() + CONNECT_TIMEOUT_NS;
        while (!connected.getAsBoolean())
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new IllegalStateException(timedOut.get());
            }
            if (step.getAsInt() == 0)
            {
                LockSupport.parkNanos(IDLE_CONNECT_PAUSE_NS);
            }
        }
    }

    @Override
    public void close()
    {
        CloseHelper.closeAll(publication, subscription);
    }
}
