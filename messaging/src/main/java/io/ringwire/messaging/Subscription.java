package io.ringwire.messaging;

import io.ringwire.messaging.protocol.CreditLayout;
import io.ringwire.messaging.protocol.JoinLayout;
import io.ringwire.messaging.protocol.SessionSetup;
import io.ringwire.messaging.status.SubscriptionCounters;
import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.cm.ConnectionListener;
import io.ringwire.rdma.cm.ConnectionManagerCounters;
import io.ringwire.rdma.cm.PendingConnection;
import io.ringwire.rdma.cm.RegionAdvertisement;
import org.agrona.CloseHelper;
import org.agrona.collections.Int2ObjectHashMap;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Subscribes to a stream: listens on the channel's endpoint for publications (many to one: one
 * ring and queue pair per publication, one completion queue for all), and hands their frames to a
 * {@link FragmentHandler} in place, in stream order per publication.
 *
 * <p>Each publication connection is an image (session). An image ends when its queue pair fails,
 * when its publication is silent past the liveness timeout (heartbeats keep idle ones alive), or
 * when a frame breaks the stream's rules; the unavailable-image handler hears of it, with the
 * session id, so a {@link FragmentAssembler} can drop a partial message.
 *
 * <p>Threading: one polling thread calls {@link #poll}. Its housekeeping takes new publications'
 * requests from the connection listener and gives each its ring, queue pair and image without
 * waiting on the network: the rest of the handshake (the REP, the wait for the RTU) runs on a
 * virtual thread of its own, so a peer that never finishes its handshake costs the polling thread
 * nothing. A publication connects only while its subscription is polled (see
 * {@link Publication#awaitConnected}). Steady-state polling allocates nothing and takes no locks.
 */
public final class Subscription implements AutoCloseable
{
    private static final int RECEIVE_BATCH = CreditLayout.INITIAL_RECEIVES;
    /** Credit and join writes an image may have outstanding. */
    private static final int IMAGE_SEND_DEPTH = 1024;
    /**
     * Completions one image can put on the shared completion queue at once: a queue pair going to
     * ERROR flushes every outstanding request, signaled or not, so both queues count whole.
     */
    private static final int IMAGE_COMPLETIONS = IMAGE_SEND_DEPTH + RECEIVE_BATCH;
    /** Polls between housekeeping passes (each reads the clock once). */
    private static final int DUTY_POLL_INTERVAL = 128;
    private static final Duration NO_WAIT = Duration.ZERO;

    private final MessagingContext context;
    private final ChannelUri channel;
    private final int streamId;
    private final Device device;
    private final ProtectionDomain domain;
    private final CompletionQueue completionQueue;
    private final int maxImages;
    private final ConnectionListener listener;
    /** Whether this subscription asks its publications for a CRC32C in every data frame. */
    private final boolean frameChecksums;
    private final SubscriptionCounters counters;
    private final Int2ObjectHashMap<Image> imagesByQueuePair = new Int2ObjectHashMap<>();
    private final CompletionHandler completionHandler = this::onCompletion;
    private Image[] images = new Image[0];
    /** Images whose handshake runs on a virtual thread; the polling thread adopts or drops each. */
    private final ArrayList<Handshake> handshakes = new ArrayList<>();
    /** An image became available before its handshake ended: its queue pair waits for RTS. */
    private boolean establishDue;
    /** The image of the last completion: a low-latency subscription mostly hears from one publication. */
    private Image lastImage;
    private FragmentHandler handler;
    private IntConsumer availableImageHandler = sessionId -> { };
    private IntConsumer unavailableImageHandler = sessionId -> { };
    private long nowNs = System.nanoTime();
    private long nextDutyNs;
    private int pollsSinceDuty;
    private boolean closed;

    private Subscription(final MessagingContext context, final ChannelUri channel, final int streamId)
    {
        if (channel.endpoints().size() != 1)
        {
            throw new IllegalArgumentException("a subscription listens on exactly one endpoint: " + channel);
        }
        this.context = context;
        this.channel = channel;
        this.streamId = streamId;
        final InetSocketAddress endpoint = channel.endpoints().get(0);
        this.device = RdmaProviders.open(context.newRdmaConfig(channel.provider(),
            LocalAddresses.bindAddressFor(channel, endpoint, true)));
        try
        {
            this.domain = device.allocateProtectionDomain();
            final long wanted = (long)context.maxPublicationsPerSubscription() * IMAGE_COMPLETIONS;
            this.completionQueue = device.createCompletionQueue((int)Math.min(wanted, device.maxCompletionQueueDepth()));
            this.maxImages = Math.min(context.maxPublicationsPerSubscription(),
                completionQueue.depth() / IMAGE_COMPLETIONS);
            if (maxImages < 1)
            {
                throw new IllegalStateException(device.name() + "'s completion queues hold at most " +
                    device.maxCompletionQueueDepth() + " completions, fewer than one publication needs (" +
                    IMAGE_COMPLETIONS + ")");
            }
            this.frameChecksums = context.frameChecksums(device.verifiesIntegrity());
            this.listener = ConnectionListener.bind(endpoint, context.connectionManagerConfig());
            this.counters = SubscriptionCounters.create(context, channel, streamId, device.counters());
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietClose(device);
            throw ex;
        }
    }

    /**
     * Opens a subscription listening on the channel's endpoint.
     *
     * @param context  concluded context.
     * @param channel  e.g. {@code ringwire:socket?endpoint=127.0.0.1:40123} (port 0: any free port,
     *                 see {@link #endpoint()}).
     * @param streamId the stream; publications of other streams are refused.
     * @return the subscription.
     */
    public static Subscription open(final MessagingContext context, final String channel, final int streamId)
    {
        return new Subscription(context, ChannelUri.parse(channel), streamId);
    }

    /**
     * @return the address publications connect to (the bound port when the channel said 0).
     */
    public InetSocketAddress endpoint()
    {
        return listener.localAddress();
    }

    /** @return the stream id. */
    public int streamId()
    {
        return streamId;
    }

    /**
     * @return how many publications this subscription takes at once: the context's
     *         {@link MessagingContext#maxPublicationsPerSubscription()}, or fewer when the device's
     *         completion queues cannot hold what that many may complete at once. Further ones are
     *         refused with the reason (their publications report NOT_CONNECTED and retry) and
     *         counted as "publications refused".
     */
    public int maxPublications()
    {
        return maxImages;
    }

    /**
     * @return whether every data frame to this subscription carries a CRC32C it verifies: decided
     *         when it opens from {@link MessagingContext#CHECKSUM_PROP} and whether the device
     *         verifies integrity itself, and told to each publication as it connects.
     */
    public boolean frameChecksums()
    {
        return frameChecksums;
    }

    /** @return its images (tests read them). */
    Image[] images()
    {
        return images;
    }

    /** @return this subscription's counters (tests read them). */
    SubscriptionCounters counters()
    {
        return counters;
    }

    /** @return its connection listener's counters (tests read them). */
    ConnectionManagerCounters listenerCounters()
    {
        return listener.counters();
    }

    /** @return the number of connected publications. */
    public int imageCount()
    {
        return images.length;
    }

    /**
     * @param handler told the session id of each new image. Polling thread.
     * @return this.
     */
    public Subscription availableImageHandler(final IntConsumer handler)
    {
        this.availableImageHandler = handler;
        return this;
    }

    /**
     * @param handler told the session id of each image that ended. Polling thread.
     * @return this.
     */
    public Subscription unavailableImageHandler(final IntConsumer handler)
    {
        this.unavailableImageHandler = handler;
        return this;
    }

    /**
     * Hands up to {@code fragmentLimit} frames to the handler, then, every so often, does the
     * subscription's housekeeping (accepting publications, heartbeat credits, liveness).
     *
     * @param fragmentHandler gets each data fragment in place.
     * @param fragmentLimit   most completions to handle in this call (padding and heartbeats count).
     * @return completions handled.
     */
    public int poll(final FragmentHandler fragmentHandler, final int fragmentLimit)
    {
        if (closed)
        {
            return 0;
        }
        handler = fragmentHandler;
        int handled = completionQueue.poll(completionHandler, fragmentLimit);
        if (establishDue)
        {
            handled += establishConnections();
        }
        if (++pollsSinceDuty >= DUTY_POLL_INTERVAL)
        {
            pollsSinceDuty = 0;
            return handled + doWork();
        }
        return handled;
    }

    private void onCompletion(final long workRequestId, final int opcode, final int status, final int byteLength,
        final int immediate, final int queuePairNumber)
    {
        Image image = lastImage;
        if (null == image || image.queuePairNumber != queuePairNumber)
        {
            image = imagesByQueuePair.get(queuePairNumber);
            if (null == image)
            {
                return;
            }
            if (!image.available)
            {
                if (status != CompletionStatus.SUCCESS)
                {
                    return; // its queue pair flushed: the handshake failed, and adoptHandshakes closes it
                }
                makeAvailable(image); // its publication is sending: the handshake completed on its side
                establishDue = true;
            }
            lastImage = image;
        }
        if (status != CompletionStatus.SUCCESS)
        {
            counters.errors.incrementRelease();
            closeImage(image);
            return;
        }
        final int outcome;
        if (opcode == CompletionOpcode.RECV_RDMA_WITH_IMM)
        {
            outcome = image.onFrame(immediate, handler, counters, nowNs);
        }
        else if (opcode == CompletionOpcode.RECV)
        {
            outcome = image.onJoin(byteLength, nowNs, counters);
        }
        else
        {
            return; // completions of our own credit writes
        }
        if (outcome != Image.VALID)
        {
            counters.protocolErrors.incrementRelease();
            closeImage(image);
        }
    }

    /**
     * Housekeeping; {@link #poll} calls it when idle. Accepts waiting publications, sends credit as a
     * heartbeat to quiet ones, closes images silent past the liveness timeout.
     *
     * @return work done.
     */
    public int doWork()
    {
        nowNs = System.nanoTime();
        if (nowNs - nextDutyNs < 0)
        {
            return 0;
        }
        nextDutyNs = nowNs + Math.min(context.heartbeatIntervalNs() / 4, 5_000_000L);
        counters.device.update();
        int work = acceptPublications() + adoptHandshakes();
        final Image[] current = images;
        for (final Image image : current)
        {
            if (image.framesReceived != image.framesReceivedAtDuty)
            {
                image.framesReceivedAtDuty = image.framesReceived;
                image.lastFrameNs = nowNs;
            }
            if (nowNs - image.lastFrameNs > context.livenessTimeoutNs())
            {
                counters.livenessTimeouts.incrementRelease();
                closeImage(image);
                work++;
            }
            else if (nowNs - image.lastCreditNs > context.heartbeatIntervalNs())
            {
                image.sendCredit(nowNs, counters);
                work++;
            }
        }
        return work;
    }

    private int acceptPublications()
    {
        final PendingConnection pending;
        try
        {
            pending = listener.accept(NO_WAIT);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return 0;
        }
        if (null == pending)
        {
            return 0;
        }
        final SessionSetup setup;
        try
        {
            setup = SessionSetup.decode(pending.remoteApplicationData());
        }
        catch (final IllegalArgumentException ex)
        {
            pending.reject(ex.getMessage());
            return 1;
        }
        final String refusal = refusal(setup, pending);
        if (null != refusal)
        {
            pending.reject(refusal);
        }
        else
        {
            openImage(setup, pending);
        }
        return 1;
    }

    /**
     * @return why this subscription refuses a publication with this setup (another stream, no room
     *         for another image, a ring or credit region it cannot use), or null to take it.
     */
    private String refusal(final SessionSetup setup, final PendingConnection pending)
    {
        if (setup.streamId() != streamId)
        {
            return "no subscription for stream " + setup.streamId() + " here (this one is stream " + streamId + ")";
        }
        if (images.length + unavailableHandshakes() >= maxImages)
        {
            counters.imagesRefused.incrementRelease();
            return "subscription full: it has " + images.length + " publications, its most (" +
                MessagingContext.MAX_PUBLICATIONS_PROP + "=" + context.maxPublicationsPerSubscription() +
                ", and its completion queue on " + device.name() + " holds " + completionQueue.depth() +
                " completions, " + IMAGE_COMPLETIONS + " per publication)";
        }
        final int capacity = setup.ringCapacity();
        if (capacity < 4096 || capacity > (1 << 30) || Integer.bitCount(capacity) != 1 ||
            pending.remoteRegions().size() != 1 || pending.remoteRegions().get(0).length() < CreditLayout.LENGTH)
        {
            return "bad session setup: ring " + capacity + " bytes, " + pending.remoteRegions().size() + " regions";
        }
        return null;
    }

    /**
     * Gives an accepted publication its ring, queue pair and image, and completes its connection on
     * a virtual thread: the REP and the wait for the RTU never hold the polling thread. The image
     * receives from now on (its JOIN may come before the handshake thread is done); it becomes
     * available at its first completion or when the handshake succeeds, whichever comes first.
     */
    private void openImage(final SessionSetup setup, final PendingConnection pending)
    {
        final int capacity = setup.ringCapacity();
        final MemoryRegion ring = domain.allocateRegion(capacity, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        final MemoryRegion creditSource = domain.allocateRegion(CreditLayout.REGION_LENGTH, Access.LOCAL_WRITE);
        final MemoryRegion join = domain.allocateRegion(JoinLayout.REGION_LENGTH, Access.LOCAL_WRITE);
        final QueuePair queuePair = domain.createQueuePair(new QueuePairConfig(completionQueue, completionQueue,
            IMAGE_SEND_DEPTH, RECEIVE_BATCH, device.maxInlineData()));
        final RegionAdvertisement credit = pending.remoteRegions().get(0);
        final Image image = new Image(setup.sessionId(), streamId, queuePair, ring, creditSource, join, credit.address(),
            credit.rkey(), setup.initialPosition(), context.creditFraction(), RECEIVE_BATCH, frameChecksums, nowNs);
        try
        {
            queuePair.modifyToInit();
            image.postInitialReceives();
        }
        catch (final RuntimeException ex)
        {
            pending.reject("the subscription could not prepare its queue pair: " + ex.getMessage());
            image.close();
            counters.errors.incrementRelease();
            return;
        }
        imagesByQueuePair.put(queuePair.queuePairNumber(), image);
        final Handshake handshake = new Handshake(image, new HandshakeQueuePair(queuePair));
        handshakes.add(handshake);
        final List<RegionAdvertisement> regions =
            List.of(new RegionAdvertisement(ring.address(), ring.rkey(), ring.length()));
        final byte[] reply = new SessionSetup(streamId, setup.sessionId(), capacity, setup.initialPosition(),
            frameChecksums ? SessionSetup.FRAME_CHECKSUMS : 0).encode();
        Thread.ofVirtual().name("ringwire-accept-" + pending.remoteManagementAddress()).start(() ->
        {
            try
            {
                pending.complete(handshake.queuePair, regions, reply);
            }
            catch (final RuntimeException ex)
            {
                handshake.error = ex.getMessage();
            }
            handshake.done = true;
        });
    }

    /** @return images still handshaking that are not yet among the available ones. */
    private int unavailableHandshakes()
    {
        int count = 0;
        for (int i = 0; i < handshakes.size(); i++)
        {
            count += handshakes.get(i).image.available ? 0 : 1;
        }
        return count;
    }

    /**
     * Moves to RTS the queue pairs of images whose publication has started sending while their
     * handshake thread still waits for (or has just read) the RTU, as a verbs device does on the
     * first packet from the active side (communication established), and sends the credit their
     * first frames earned: until RTS it could not be posted.
     */
    private int establishConnections()
    {
        establishDue = false;
        int work = 0;
        for (int i = 0; i < handshakes.size(); i++)
        {
            final Handshake handshake = handshakes.get(i);
            if (handshake.image.available && handshake.queuePair.establish())
            {
                handshake.image.sendOwedCredit(nowNs, counters);
                work++;
            }
        }
        return work;
    }

    /** Adopts the images whose handshake ended: available on success, closed on failure. */
    private int adoptHandshakes()
    {
        int work = 0;
        for (int i = handshakes.size() - 1; i >= 0; i--)
        {
            final Handshake handshake = handshakes.get(i);
            if (!handshake.done)
            {
                continue;
            }
            handshakes.remove(i);
            work++;
            String error = handshake.error;
            if (null == error)
            {
                try
                {
                    handshake.queuePair.applyReadyToSend();
                }
                catch (final RuntimeException ex)
                {
                    error = ex.getMessage();
                }
            }
            if (null == error)
            {
                makeAvailable(handshake.image);
            }
            else
            {
                counters.errors.incrementRelease();
                closeImage(handshake.image);
            }
        }
        return work;
    }

    /** Adds an image to those polled for liveness and credit, and tells the application. */
    private void makeAvailable(final Image image)
    {
        if (image.available)
        {
            return;
        }
        image.available = true;
        image.lastFrameNs = nowNs;
        final Image[] updated = new Image[images.length + 1];
        System.arraycopy(images, 0, updated, 0, images.length);
        updated[images.length] = image;
        images = updated;
        counters.imagesOpened.incrementRelease();
        availableImageHandler.accept(image.sessionId);
    }

    /**
     * An image's handshake on its virtual thread: {@code done} is written last, publishing
     * {@code error} to the polling thread.
     */
    private static final class Handshake
    {
        final Image image;
        /** What the handshake thread moves; RTS and ERROR wait for this thread. */
        final HandshakeQueuePair queuePair;
        String error;
        volatile boolean done;

        Handshake(final Image image, final HandshakeQueuePair queuePair)
        {
            this.image = image;
            this.queuePair = queuePair;
        }
    }

    private void closeImage(final Image image)
    {
        if (null == imagesByQueuePair.remove(image.queuePairNumber))
        {
            return;
        }
        if (lastImage == image)
        {
            lastImage = null;
        }
        if (!image.available)
        {
            image.close(); // never available: the application never heard of it
            return;
        }
        final List<Image> remaining = new ArrayList<>(images.length);
        for (final Image other : images)
        {
            if (other != image)
            {
                remaining.add(other);
            }
        }
        images = remaining.toArray(new Image[0]);
        image.close();
        counters.imagesClosed.incrementRelease();
        unavailableImageHandler.accept(image.sessionId);
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final Handshake handshake : handshakes)
        {
            handshake.queuePair.abandon();
        }
        for (final Image image : images)
        {
            image.close();
        }
        for (final Handshake handshake : handshakes)
        {
            if (!handshake.image.available)
            {
                handshake.image.close(); // an available one is among the images, closed above
            }
        }
        handshakes.clear();
        images = new Image[0];
        lastImage = null;
        CloseHelper.quietCloseAll(listener, counters, device);
    }

    @Override
    public String toString()
    {
        return "Subscription{channel=" + channel + ", stream=" + streamId + ", images=" + images.length + '}';
    }
}
