package io.ringwire.messaging;

import io.ringwire.messaging.protocol.CreditLayout;
import io.ringwire.messaging.protocol.JoinLayout;
import io.ringwire.messaging.protocol.SessionSetup;
import io.ringwire.messaging.status.SubscriptionCounters;
import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.cm.ConnectionListener;
import io.ringwire.rdma.cm.PendingConnection;
import io.ringwire.rdma.cm.RegionAdvertisement;
import org.agrona.CloseHelper;
import org.agrona.collections.Int2ObjectHashMap;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * How a publication becomes one of a subscription's images: its connection request is taken from
 * the listener without waiting, checked (the stream, room for another image, a ring and credit
 * region the subscription can use) and refused with the reason, or given its ring, queue pair and
 * image. The rest of the handshake (the REP, the wait for the RTU) runs on a virtual thread of its
 * own, so a peer that never finishes costs the polling thread nothing; the polling thread then
 * adopts the image, or drops it when the handshake failed. An image whose publication starts
 * sending before its handshake thread is done becomes available at once, and its queue pair is
 * moved to RTS here, as a verbs device does on the first packet from the active side.
 *
 * <p>The subscription keeps its images: this class registers each new one by queue pair number,
 * and hands it back to be made available or closed.
 *
 * <p>Threading: the subscription's polling thread, but for each handshake's virtual thread.
 * Admission allocates (a ring, a queue pair, a thread per publication); it runs in the
 * subscription's housekeeping, never per frame.
 */
final class ImageAdmission
{
    private static final System.Logger LOG = System.getLogger(ImageAdmission.class.getName());
    /** Receives an image posts before its connection completes, and its receive queue's depth. */
    static final int RECEIVE_BATCH = CreditLayout.INITIAL_RECEIVES;
    /** Credit and join writes an image may have outstanding. */
    static final int IMAGE_SEND_DEPTH = 1024;
    /**
     * Completions one image can put on the shared completion queue at once: a queue pair going to
     * ERROR flushes every outstanding request, signaled or not, so both queues count whole.
     */
    static final int IMAGE_COMPLETIONS = IMAGE_SEND_DEPTH + RECEIVE_BATCH;
    private static final Duration NO_WAIT = Duration.ZERO;

    private final MessagingContext context;
    private final int streamId;
    private final Device device;
    private final ProtectionDomain domain;
    private final CompletionQueue completionQueue;
    private final ConnectionListener listener;
    private final int maxImages;
    private final int maxRing;
    private final int maxPerIdentity;
    private final boolean frameChecksums;
    private final SubscriptionCounters counters;
    private final Int2ObjectHashMap<Image> imagesByQueuePair;
    private final Consumer<Image> makeAvailable;
    private final Consumer<Image> closeImage;
    /** Images whose handshake runs on a virtual thread; the polling thread adopts or drops each. */
    private final ArrayList<Handshake> handshakes = new ArrayList<>();
    /** An image became available before its handshake ended: its queue pair waits for RTS. */
    private boolean establishDue;
    /** Session ids refused at admission: from {@link #reservedFirst}, {@link #reservedCount} of them. */
    private int reservedFirst;
    private long reservedCount;

    /**
     * @param imagesByQueuePair the subscription's images by queue pair number: each new one is put here.
     * @param makeAvailable     makes an image available (once): its handshake succeeded.
     * @param closeImage        closes an image: its handshake failed.
     */
    ImageAdmission(final MessagingContext context, final int streamId, final Device device,
        final ProtectionDomain domain, final CompletionQueue completionQueue, final ConnectionListener listener,
        final int maxImages, final int maxRing, final int maxPerIdentity, final boolean frameChecksums,
        final SubscriptionCounters counters,
        final Int2ObjectHashMap<Image> imagesByQueuePair, final Consumer<Image> makeAvailable,
        final Consumer<Image> closeImage)
    {
        this.context = context;
        this.streamId = streamId;
        this.device = device;
        this.domain = domain;
        this.completionQueue = completionQueue;
        this.listener = listener;
        this.maxImages = maxImages;
        this.maxRing = maxRing;
        this.maxPerIdentity = maxPerIdentity;
        this.frameChecksums = frameChecksums;
        this.counters = counters;
        this.imagesByQueuePair = imagesByQueuePair;
        this.makeAvailable = makeAvailable;
        this.closeImage = closeImage;
    }

    /** Refuses publications whose session id is one of {@code count} from {@code first} (wrapping). */
    void reserveSessionIds(final int first, final int count)
    {
        reservedFirst = first;
        reservedCount = count;
    }

    /**
     * Takes one waiting publication's request, if there is one, and refuses it or opens its image.
     *
     * @param availableImages the subscription's available images now.
     * @param nowNs           the housekeeping's clock reading.
     * @return work done.
     */
    int acceptPublication(final int availableImages, final long nowNs)
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
            counters.setupsRefused.incrementRelease();
            reject(pending, ex.getMessage());
            return 1;
        }
        final String refusal = refusal(setup, pending, availableImages);
        if (null != refusal)
        {
            reject(pending, refusal);
        }
        else
        {
            openImage(setup, pending, nowNs);
        }
        return 1;
    }

    /**
     * @return why this subscription refuses a publication with this setup (another stream, no room
     *         for another image, a ring above its largest or a credit region it cannot use, a
     *         session id reserved or in use, its identity at its number of publications), or null to
     *         take it.
     */
    private String refusal(final SessionSetup setup, final PendingConnection pending, final int availableImages)
    {
        if (setup.streamId() != streamId)
        {
            counters.setupsRefused.incrementRelease();
            return "no subscription for stream " + setup.streamId() + " here (this one is stream " + streamId + ")";
        }
        if (availableImages + unavailableHandshakes() >= maxImages)
        {
            counters.imagesRefused.incrementRelease();
            return "subscription full: it has " + availableImages + " publications, its most (" + maxImages +
                ": its channel's max-publications= or " + MessagingContext.MAX_PUBLICATIONS_PROP + "=" +
                context.maxPublicationsPerSubscription() + ", and its completion queue on " + device.name() +
                " holds " + completionQueue.depth() + " completions, " + IMAGE_COMPLETIONS + " per publication)";
        }
        final int capacity = setup.ringCapacity();
        if (capacity < 4096 || capacity > (1 << 30) || Integer.bitCount(capacity) != 1 ||
            pending.remoteRegions().size() != 1 || pending.remoteRegions().get(0).length() < CreditLayout.LENGTH)
        {
            counters.setupsRefused.incrementRelease();
            return "bad session setup: ring " + capacity + " bytes, " + pending.remoteRegions().size() + " regions";
        }
        // The credit's words are stored with release order, straight into the region on shm: a
        // word across two lines is no atomic store (and a fault on some CPUs).
        if ((pending.remoteRegions().get(0).address() & (Long.BYTES - 1)) != 0)
        {
            counters.setupsRefused.incrementRelease();
            return "bad session setup: credit region at 0x" + Long.toHexString(pending.remoteRegions().get(0).address()) +
                ", not on an 8-byte boundary";
        }
        if (capacity > maxRing)
        {
            counters.setupsRefused.incrementRelease();
            return "ring of " + capacity + " bytes is above this subscription's largest, " + maxRing + " (the " +
                "subscriber decides: its channel's max-ring= or " + MessagingContext.MAX_RING_PROP + ")";
        }
        if (((setup.sessionId() - reservedFirst) & 0xFFFF_FFFFL) < reservedCount)
        {
            counters.setupsRefused.incrementRelease();
            return "session id " + setup.sessionId() + " is reserved here (the application's own sessions): a " +
                "publication that names its session id (session-id=) must name another";
        }
        final String identity = pending.peerIdentity().name();
        int sameIdentity = 0;
        for (final Image image : imagesByQueuePair.values())
        {
            if (image.sessionId == setup.sessionId())
            {
                counters.setupsRefused.incrementRelease();
                return "session id " + setup.sessionId() + " is in use by another publication here";
            }
            sameIdentity += identity.equals(image.identity) ? 1 : 0;
        }
        if (maxPerIdentity > 0 && sameIdentity >= maxPerIdentity)
        {
            counters.setupsRefused.incrementRelease();
            return "identity '" + identity + "' has " + sameIdentity + " publications here, its most (max-per-identity=" +
                maxPerIdentity + " or " + MessagingContext.MAX_PER_IDENTITY_PROP + ")";
        }
        return null;
    }

    /**
     * Gives an accepted publication its ring, queue pair and image, and completes its connection on
     * a virtual thread: the REP and the wait for the RTU never hold the polling thread. The image
     * receives from now on (its JOIN may come before the handshake thread is done); it becomes
     * available at its first completion or when the handshake succeeds, whichever comes first.
     */
    private void openImage(final SessionSetup setup, final PendingConnection pending, final long nowNs)
    {
        final int capacity = setup.ringCapacity();
        MemoryRegion ring = null;
        MemoryRegion creditSource = null;
        MemoryRegion join = null;
        QueuePair queuePair = null;
        final Image image;
        try
        {
            ring = domain.allocateRegion(capacity, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            creditSource = domain.allocateRegion(CreditLayout.REGION_LENGTH, Access.LOCAL_WRITE);
            join = domain.allocateRegion(JoinLayout.REGION_LENGTH, Access.LOCAL_WRITE);
            queuePair = domain.createQueuePair(new QueuePairConfig(completionQueue, completionQueue,
                IMAGE_SEND_DEPTH, RECEIVE_BATCH, device.maxInlineData()));
        }
        catch (final RuntimeException | OutOfMemoryError ex)
        {
            // Out of memory (a direct buffer's), files or queue pairs: this publication is refused,
            // and the subscription polls on with what it has.
            CloseHelper.quietCloseAll(queuePair, join, creditSource, ring);
            reject(pending, "the subscription could not make room for the publication: " + ex.getMessage());
            counters.errors.incrementRelease();
            return;
        }
        final RegionAdvertisement credit = pending.remoteRegions().get(0);
        image = new Image(setup.sessionId(), pending.peerIdentity().name(), streamId, queuePair, ring,
            creditSource, join, credit.address(),
            credit.rkey(), setup.initialPosition(), context.creditFraction(), RECEIVE_BATCH, frameChecksums,
            device.mapsRemoteMemory(), nowNs);
        try
        {
            queuePair.modifyToInit();
            image.postInitialReceives();
        }
        catch (final RuntimeException ex)
        {
            reject(pending, "the subscription could not prepare its queue pair: " + ex.getMessage());
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
            (frameChecksums ? SessionSetup.FRAME_CHECKSUMS : 0) |
            (device.mapsRemoteMemory() ? SessionSetup.MEMORY_LOG : 0)).encode();
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

    /**
     * Refuses a request, unless its answer time ran out meanwhile (the listener's expiry answers it
     * then, and the peer has stopped waiting): that is no failure of the polling thread.
     */
    private static void reject(final PendingConnection pending, final String reason)
    {
        try
        {
            pending.reject(reason);
        }
        catch (final IllegalStateException ex)
        {
            // Expired: already answered.
        }
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

    /** @return whether a handshake is open: its JOIN or its first completion may come any time. */
    boolean hasHandshakes()
    {
        return !handshakes.isEmpty();
    }

    /** An image became available at its first completion, before its handshake ended. */
    void establishDue()
    {
        establishDue = true;
    }

    /** @return whether {@link #establishConnections} has queue pairs to move to RTS. */
    boolean isEstablishDue()
    {
        return establishDue;
    }

    /**
     * Moves to RTS the queue pairs of images whose publication has started sending while their
     * handshake thread still waits for (or has just read) the RTU, as a verbs device does on the
     * first packet from the active side (communication established), and sends the credit their
     * first frames earned: until RTS it could not be posted.
     *
     * @return work done.
     */
    int establishConnections(final long nowNs)
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

    /**
     * Adopts the images whose handshake ended: available on success, closed on failure.
     *
     * @return work done.
     */
    int adoptHandshakes()
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
            if (handshake.image.isClosed())
            {
                continue; // made available by its first completion, and closed by its available-image handler
            }
            String error = handshake.error;
            if (null == error)
            {
                try
                {
                    handshake.queuePair.applyReadyToSend();
                    if (!handshake.image.mapCredit() && handshake.queuePair.real().state() != QueuePairState.ERROR)
                    {
                        // Not a publication that has come and gone already: one whose region this
                        // process may not store into. What it committed is read, then the image ends.
                        LOG.log(System.Logger.Level.WARNING, "subscription stream=" + streamId + ": the credit " +
                            "region of session " + handshake.image.sessionId + " (" + handshake.image.identity +
                            ") cannot be mapped for this process's stores: its image drains and ends");
                        counters.errors.incrementRelease();
                    }
                }
                catch (final RuntimeException ex)
                {
                    error = ex.getMessage();
                }
            }
            if (null == error)
            {
                makeAvailable.accept(handshake.image);
            }
            else
            {
                // Rare, and the publisher may believe itself connected: say which session and why.
                LOG.log(System.Logger.Level.WARNING, "subscription stream=" + streamId + ": the connection of " +
                    "session " + handshake.image.sessionId + " (" + handshake.image.identity + ") failed" +
                    (handshake.image.available ? " after its first frames" : "") + ": " + error);
                counters.errors.incrementRelease();
                closeImage.accept(handshake.image);
            }
        }
        return work;
    }

    /**
     * Makes every handshake under way fail from here on: first when the subscription closes, before
     * it closes any image's queue pair.
     */
    void abandonHandshakes()
    {
        for (final Handshake handshake : handshakes)
        {
            handshake.queuePair.abandon();
        }
    }

    /** Closes the images of abandoned handshakes that never became available, and forgets every handshake. */
    void closeHandshakingImages()
    {
        for (final Handshake handshake : handshakes)
        {
            if (!handshake.image.available)
            {
                handshake.image.close(); // an available one is among the subscription's images, closed there
            }
        }
        handshakes.clear();
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
}
