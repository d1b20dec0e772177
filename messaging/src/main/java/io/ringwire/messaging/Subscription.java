package io.ringwire.messaging;

import io.ringwire.messaging.protocol.FrameDescriptor;
import io.ringwire.messaging.status.SubscriptionCounters;
import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.cm.ConnectionListener;
import io.ringwire.rdma.cm.ConnectionManagerCounters;
import org.agrona.CloseHelper;
import org.agrona.collections.Int2ObjectHashMap;

import java.net.InetSocketAddress;
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
    /** Waiting publications one housekeeping cycle takes from the listener at most. */
    private static final int ACCEPTS_PER_DUTY = 16;
    /**
     * Polls between two looks at the clock for housekeeping that is due. A count alone would leave
     * an owner that polls seldom (every few milliseconds) and never calls {@link #doWork} without
     * its heartbeat credits past the liveness timeout; the clock alone, read every poll, would cost
     * a busy-spinning one its latency.
     */
    private static final int DUTY_CLOCK_MASK = 15;
    /** Polls of memory logs between two polls of the completion queue once no handshake is open. */
    private static final int LOG_COMPLETION_POLL_INTERVAL = 64;

    private final MessagingContext context;
    private final ChannelUri channel;
    private final int streamId;
    private final Device device;
    private final CompletionQueue completionQueue;
    private final int maxImages;
    private final ConnectionListener listener;
    /** Whether this subscription asks its publications for a CRC32C in every data frame. */
    private final boolean frameChecksums;
    private final SubscriptionCounters counters;
    private final Int2ObjectHashMap<Image> imagesByQueuePair = new Int2ObjectHashMap<>();
    private final CompletionHandler completionHandler = this::onCompletion;
    /** Per-frame counts in plain fields, copied into the counters file by the duty cycle. */
    private final SubscriptionTallies tallies = new SubscriptionTallies();
    /** The publications' rings are memory logs: frames are polled in them, not announced by completions. */
    private final boolean memoryLog;
    /** Polls since the completion queue was last polled, in a memory log (it only carries JOINs and errors). */
    private int pollsSinceCompletions;
    private final ImageAdmission admission;
    private Image[] images = new Image[0];
    /** The image of the last completion: a low-latency subscription mostly hears from one publication. */
    private Image lastImage;
    private FragmentHandler handler;
    private IntConsumer availableImageHandler = sessionId -> { };
    private IntConsumer unavailableImageHandler = sessionId -> { };
    private long nowNs = System.nanoTime();
    private long nextDutyNs;
    private int pollsSinceDuty;
    /**
     * Whether the application polled since the last housekeeping: an image's frames are only seen
     * when it does, so a subscription that is not polled (its owner holds its input back) cannot
     * tell a silent publication from one whose frames wait unread, and times none out meanwhile.
     */
    private boolean polledSinceDuty;
    /** Which image a memory log's poll reads first. */
    private int logRotation;
    private boolean closed;
    /**
     * True while {@link #poll} runs: a close from inside one of its handlers (a fragment's, an
     * image's) leaves the release of the images, rings and device to the poll's end, as the poll
     * is still reading them.
     */
    private boolean polling;
    private boolean closeDeferred;

    private Subscription(final MessagingContext context, final ChannelUri channel, final int streamId)
    {
        if (channel.endpoints().size() != 1)
        {
            throw new IllegalArgumentException("a subscription listens on exactly one endpoint: " + channel);
        }
        if (channel.sessionId().isPresent())
        {
            throw new IllegalArgumentException("channel '" + channel + "': session-id= is the session a publication " +
                "connects under; a subscription takes every session its accept= identities open");
        }
        this.context = context;
        this.channel = channel;
        this.streamId = streamId;
        final InetSocketAddress endpoint = channel.endpoints().get(0);
        this.device = RdmaProviders.open(context.newRdmaConfig(channel.provider(),
            LocalAddresses.bindAddressFor(channel, endpoint, true)));
        ConnectionListener boundListener = null;
        SubscriptionCounters createdCounters = null;
        try
        {
            final ProtectionDomain domain = device.allocateProtectionDomain();
            final int wantedImages = channel.maxPublications(context.maxPublicationsPerSubscription());
            final long wanted = (long)wantedImages * ImageAdmission.IMAGE_COMPLETIONS;
            this.completionQueue = device.createCompletionQueue((int)Math.min(wanted, device.maxCompletionQueueDepth()));
            this.maxImages = Math.min(wantedImages, completionQueue.depth() / ImageAdmission.IMAGE_COMPLETIONS);
            if (maxImages < 1)
            {
                throw new IllegalStateException(device.name() + "'s completion queues hold at most " +
                    device.maxCompletionQueueDepth() + " completions, fewer than one publication needs (" +
                    ImageAdmission.IMAGE_COMPLETIONS + ")");
            }
            this.frameChecksums = context.frameChecksums(device.verifiesIntegrity());
            this.memoryLog = device.mapsRemoteMemory();
            boundListener = ConnectionListener.bind(endpoint, ChannelKeys.forSubscription(context, channel));
            this.listener = boundListener;
            createdCounters = SubscriptionCounters.create(context, channel, streamId, device.counters());
            this.counters = createdCounters;
            this.admission = new ImageAdmission(context, streamId, device, domain, completionQueue, listener, maxImages,
                channel.maxRingCapacity(context.maxRingCapacity()),
                channel.maxPublicationsPerIdentity(context.maxPublicationsPerIdentity()), frameChecksums, counters,
                imagesByQueuePair, this::makeAvailable, this::closeImage);
        }
        catch (final RuntimeException ex)
        {
            // The listener is bound and accepting by now, and the counters hold their slots: neither
            // may outlive a subscription that never opened.
            CloseHelper.quietCloseAll(createdCounters, boundListener, device);
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
     * @return how many publications this subscription takes at once: its channel's
     *         {@code max-publications=}, else the context's
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
     * Refuses, when they connect, publications whose session id is one of {@code count} from
     * {@code first}: ids the application gives sessions of its own that do not come through this
     * subscription (a publication may name any session id, {@code session-id=}). Call before the
     * first poll; polling thread.
     *
     * @param first the first reserved id.
     * @param count how many, from it (wrapping past {@link Integer#MAX_VALUE}); 0 reserves none.
     * @return this.
     */
    public Subscription reserveSessionIds(final int first, final int count)
    {
        if (count < 0)
        {
            throw new IllegalArgumentException("a count of reserved session ids is not negative: " + count);
        }
        admission.reserveSessionIds(first, count);
        return this;
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
     * Hands up to {@code fragmentLimit} frames to the handler, then, when it is due (every few
     * milliseconds, looked at every 16 polls), does the subscription's housekeeping (accepting
     * publications, heartbeat credits, liveness).
     *
     * @param fragmentHandler gets each data fragment in place.
     * @param fragmentLimit   most completions to handle in this call (padding and heartbeats count).
     * @return completions handled.
     * @throws IllegalStateException when called from inside this subscription's own poll or
     *                               housekeeping (a fragment or image handler): the inner read would
     *                               overtake the frame the outer one is handing over.
     */
    public int poll(final FragmentHandler fragmentHandler, final int fragmentLimit)
    {
        if (closed)
        {
            return 0;
        }
        if (polling)
        {
            throw new IllegalStateException("poll from inside this subscription's own poll (a fragment or image " +
                "handler): return from the handler and poll again");
        }
        polling = true;
        try
        {
            handler = fragmentHandler;
            polledSinceDuty = true;
            int handled = memoryLog ? pollLogs(fragmentHandler, fragmentLimit) :
                completionQueue.poll(completionHandler, fragmentLimit);
            if (closed)
            {
                return handled;
            }
            if (admission.isEstablishDue())
            {
                handled += admission.establishConnections(nowNs);
            }
            if (0 == (++pollsSinceDuty & DUTY_CLOCK_MASK) && System.nanoTime() - nextDutyNs >= 0)
            {
                return handled + doWork();
            }
            return handled;
        }
        finally
        {
            polling = false;
            if (closeDeferred)
            {
                closeDeferred = false;
                release();
            }
        }
    }

    /**
     * A memory log's poll: each image's ring is read in turn, the one after the image that was read
     * first last time first, so a busy publication does not starve the others. The completion queue
     * carries only JOINs and failures here: it is polled every time while a handshake is open, else
     * every {@value #LOG_COMPLETION_POLL_INTERVAL}th time.
     */
    private int pollLogs(final FragmentHandler fragmentHandler, final int fragmentLimit)
    {
        int handled = 0;
        final Image[] current = images;
        final int count = current.length;
        if (count == 1)
        {
            final int read = pollLog(current[0], fragmentHandler, fragmentLimit);
            if (read < 0)
            {
                return 0; // the image broke the stream's rules, or drained, and is closed
            }
            handled = read;
        }
        else if (count > 1)
        {
            final int start = ++logRotation >= count ? (logRotation = 0) : logRotation;
            for (int i = start, polled = 0; polled < count && handled < fragmentLimit && !closed; polled++)
            {
                final int read = pollLog(current[i], fragmentHandler, fragmentLimit - handled);
                if (read < 0)
                {
                    return handled; // that image is closed: the array changed under the loop
                }
                handled += read;
                i = i + 1 == count ? 0 : i + 1;
            }
        }
        if (admission.hasHandshakes() || ++pollsSinceCompletions >= LOG_COMPLETION_POLL_INTERVAL)
        {
            pollsSinceCompletions = 0;
            handled += completionQueue.poll(completionHandler, fragmentLimit);
        }
        return handled;
    }

    /**
     * @return frames one image's memory log gave, or -1 when it broke the rules or has drained (it
     *         is closed).
     */
    private int pollLog(final Image image, final FragmentHandler fragmentHandler, final int fragmentLimit)
    {
        final int read = image.pollLog(fragmentHandler, fragmentLimit, counters, tallies, nowNs);
        // A limit of 0 reads nothing, which says nothing of whether a draining image has frames left.
        if (read == 0 && fragmentLimit > 0 && image.draining)
        {
            if (!image.isJoined())
            {
                // Its JOIN (where the stream starts) may wait in the completion queue, which a memory
                // log's poll reads only now and then: read it in this poll, the frames in the next.
                // One that never comes ends the image with the liveness timeout.
                pollsSinceCompletions = LOG_COMPLETION_POLL_INTERVAL;
                return 0;
            }
            closeImage(image);
            return -1;
        }
        if (read < 0)
        {
            counters.protocolErrors.incrementRelease();
            image.unreadAbandoned = true;
            closeImage(image);
        }
        return read;
    }

    private void onCompletion(final long workRequestId, final int opcode, final int status, final int byteLength,
        final int immediate, final int queuePairNumber)
    {
        if (closed)
        {
            return; // a handler closed the subscription in this poll: the rest of its completions go with it
        }
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
                if (closed)
                {
                    return; // its available-image handler closed the subscription
                }
                if (imagesByQueuePair.get(queuePairNumber) != image)
                {
                    return; // its available-image handler closed it: its memory is released
                }
                admission.establishDue();
            }
            lastImage = image;
        }
        if (status != CompletionStatus.SUCCESS)
        {
            if (memoryLog)
            {
                // The ring still holds whole frames the publication committed: read them first.
                if (!image.draining)
                {
                    counters.errors.incrementRelease();
                    image.draining = true;
                }
                return;
            }
            counters.errors.incrementRelease();
            closeImage(image);
            return;
        }
        final int outcome;
        if (opcode == CompletionOpcode.RECV_RDMA_WITH_IMM)
        {
            // A memory log's frames are read from the ring, never announced: a peer that announces
            // one would move the position off the log's frame grid.
            outcome = memoryLog ? Image.PROTOCOL_ERROR :
                immediate == FrameDescriptor.KEEPALIVE_IMMEDIATE && 0 == byteLength ? image.onKeepalive(nowNs, counters) :
                image.onFrame(immediate, handler, counters, tallies, nowNs);
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
            image.unreadAbandoned = true;
            closeImage(image);
        }
    }

    /**
     * Housekeeping; {@link #poll} calls it when it is due, looking at the clock every 16 polls, so an
     * owner that polls at least every liveness timeout / 16 (125 ms at the defaults) needs no other
     * call, and one that polls more seldom, or stops polling for a while, calls this meanwhile. Accepts
     * waiting publications, sends credit as a heartbeat to quiet ones, closes images silent past the
     * liveness timeout.
     *
     * @return work done.
     */
    public int doWork()
    {
        if (closed)
        {
            return 0;
        }
        if (polling)
        {
            return housekeeping(); // from poll, which finishes a close its handlers asked for
        }
        polling = true;
        try
        {
            return housekeeping();
        }
        finally
        {
            polling = false;
            if (closeDeferred)
            {
                closeDeferred = false;
                release();
            }
        }
    }

    /** {@link #doWork}'s work: the image handlers it calls may close the subscription. */
    private int housekeeping()
    {
        nowNs = System.nanoTime();
        if (nowNs - nextDutyNs < 0)
        {
            return 0;
        }
        nextDutyNs = nowNs + Math.min(context.heartbeatIntervalNs() / 4, 5_000_000L);
        counters.device.update();
        tallies.flush(counters);
        counters.identitiesRefused.setRelease(listener.counters().rejectedUnknownIdentity());
        // Several waiting publications a cycle: many connecting at once (an exchange's clients at
        // start) are each answered within their handshake's time, not one per cycle.
        int work = 0;
        for (int i = 0; i < ACCEPTS_PER_DUTY && admission.acceptPublication(images.length, nowNs) > 0; i++)
        {
            work++;
        }
        work += admission.adoptHandshakes();
        if (closed)
        {
            return work; // an available-image handler closed the subscription
        }
        final boolean polled = polledSinceDuty;
        polledSinceDuty = false;
        if (!polled)
        {
            work += completionQueue.progress(); // the publications' writes are acknowledged meanwhile
        }
        final Image[] current = images;
        for (final Image image : current)
        {
            if (closed)
            {
                break; // an unavailable-image handler closed the subscription: its images with it
            }
            if (image.isClosed())
            {
                continue; // an unavailable-image handler closed it: nothing of it is to be written
            }
            // Unpolled images are kept alive (the application is busy), but not a draining one: only
            // a poll closes it, and one the application never polls again ends with the timeout. A
            // memory log's publication that no frame can leave raises its beat instead.
            final long beat = memoryLog ? image.publicationBeat() : 0;
            if ((!polled && !image.draining) || image.framesReceived != image.framesReceivedAtDuty ||
                (beat != image.beatAtDuty && !image.draining))
            {
                image.framesReceivedAtDuty = image.framesReceived;
                image.beatAtDuty = beat;
                image.lastFrameNs = nowNs;
            }
            // Silent at two looks in a row: the application had a round of polls between them. A
            // subscriber that was away (its thread stalled past the timeout) finds its images silent
            // at its first look through no fault of theirs, and a loop that runs its duty cycle
            // before its poll would otherwise close an image holding what its publication wrote
            // meanwhile, unread: those accepted messages would be lost.
            final boolean silent = nowNs - image.lastFrameNs > context.livenessTimeoutNs();
            final boolean silentBefore = image.silentAtLastLook;
            image.silentAtLastLook = silent;
            if (silent && silentBefore)
            {
                counters.livenessTimeouts.incrementRelease();
                closeImage(image);
                work++;
            }
            else if (memoryLog && image.available && !image.draining &&
                image.queuePair.state() == QueuePairState.ERROR)
            {
                // A memory log takes no completion that would tell: its publication closed the
                // connection (it cut this subscriber off, or closed) or its process is gone. The
                // frames it committed are read before the image closes; a new connection of the
                // same session is refused until then, so nothing of it comes out of order.
                image.draining = true;
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

    /**
     * @param sessionId an available image's session id, as the available-image handler was told it.
     * @return the identity its publication proved at the handshake (the name of a key this
     *         subscription accepts), or null when no such image is available.
     */
    public String imageIdentity(final int sessionId)
    {
        for (final Image image : images)
        {
            if (image.sessionId == sessionId)
            {
                return image.identity;
            }
        }
        return null;
    }

    /**
     * Closes an available image on the application's word (a peer that never logged on, keeps
     * sending what it must not, or reads too slowly): its queue pair is torn down, the
     * unavailable-image handler hears of it, and it is counted as evicted. Its publication sees the
     * connection fail and may connect again, within the subscription's limits; what the image left
     * unread is not written again into that connection (a memory log's would be otherwise).
     *
     * <p>Threading: the polling thread, a fragment handler included (an image's read stops after
     * the frame its handler took when that handler closes it, and a closed image is not read again).
     *
     * @param sessionId the image's session id.
     * @return whether such an image was available.
     */
    public boolean closeImage(final int sessionId)
    {
        for (final Image image : images)
        {
            if (image.sessionId == sessionId)
            {
                counters.imagesEvicted.incrementRelease();
                image.unreadAbandoned = true;
                closeImage(image);
                return true;
            }
        }
        return false;
    }

    /**
     * @return the listener's refusals of identities this subscription does not accept, also
     *         counted as "identities refused".
     */
    public long identitiesRefused()
    {
        return listener.counters().rejectedUnknownIdentity();
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
        if (polling)
        {
            // From inside a handler: every read stops now (the image whose handler is on the stack
            // finishes its close once that returns); the rest waits for the poll's end.
            for (final Image image : images)
            {
                image.close();
            }
            images = new Image[0];
            lastImage = null;
            closeDeferred = true;
            return;
        }
        release();
    }

    private void release()
    {
        admission.abandonHandshakes();
        for (final Image image : images)
        {
            image.close();
        }
        admission.closeHandshakingImages();
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
