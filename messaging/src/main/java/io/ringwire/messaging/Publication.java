package io.ringwire.messaging;

import io.ringwire.messaging.protocol.FrameAppender;
import io.ringwire.messaging.protocol.FrameDescriptor;
import io.ringwire.messaging.protocol.FrameSigner;
import io.ringwire.messaging.status.PublicationCounters;
import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.SendFlags;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.ringwire.messaging.protocol.FrameDescriptor.*;

/**
 * Publishes a stream into the rings of one or more subscriptions (fan-out: one queue pair each),
 * with Aeron's {@code ExclusivePublication} semantics: {@link #offer} and {@link #tryClaim} return
 * the new stream position, or {@link #NOT_CONNECTED}, {@link #BACK_PRESSURED}, {@link #ADMIN_ACTION},
 * {@link #CLOSED} or {@link #MAX_POSITION_EXCEEDED}.
 *
 * <p>How a frame travels over RDMA: it is encoded in place into the registered staging region at
 * the offset it will have in the remote ring, then written there with one RDMA WRITE WITH IMMEDIATE
 * per subscriber (inline when small, signaled every {@link MessagingContext#signalInterval()}th).
 * Where the provider shares memory with the subscriber (shm, {@link Device#mapsRemoteMemory()}), the
 * ring is a memory log: with one subscriber the frame is encoded straight into its ring and
 * published by one release store of its position word (frames start on cache lines, so a small
 * message and its header are one line), with several it is encoded once in staging and copied into
 * each ring the same way. The subscriber writes its consumed position into this publication's
 * credit region; {@code offer} reads it locally, and only when its cached limit runs short, and
 * returns BACK_PRESSURED rather than overwrite anything unread. Messages longer than a frame are fragmented (BEGIN/END flags), all fragments admitted
 * together, so a subscriber never gets part of a message unless the publisher dies mid-way (and a
 * {@link FragmentAssembler} then never delivers it).
 *
 * <p>Threading: one owning thread calls everything, and {@link #doWork()} when it has nothing to
 * offer (heartbeats, liveness, reconnection, completions). Offers run that duty cycle themselves
 * every {@value #OFFERS_PER_DUTY} attempts ({@value #LOG_OFFERS_PER_DUTY} into memory logs, whose
 * frames leave no completion to reap), after their frame has gone out, so no frame waits behind
 * housekeeping (on roce, for instance, reaping a batch of ACKs takes a system call each). Offer and
 * tryClaim allocate nothing and take no locks.
 */
public final class Publication implements AutoCloseable
{
    /** No subscriber is connected. */
    public static final long NOT_CONNECTED = -1;
    /** The slowest subscriber's ring has no room: retry later. */
    public static final long BACK_PRESSURED = -2;
    /**
     * The publication had lost every subscriber and is connected again (under a new session id, unless
     * the channel names one or a connection begun before the loss kept it): retry the offer. Said once,
     * by the first offer or claim after the reconnection, wherever the reconnection ran.
     */
    public static final long ADMIN_ACTION = -3;
    /** The publication is closed. */
    public static final long CLOSED = -4;
    /** The stream position would overflow. */
    public static final long MAX_POSITION_EXCEEDED = -5;

    /**
     * Offer attempts between two duty cycles that the offers run themselves. Small, so one cycle
     * finds few completions and ACKs to reap (on roce each ACK is a datagram that takes a receive call)
     * and the offer that runs it returns well within a round trip; the longer the interval, the more
     * a single offer reaps for all the others.
     */
    static final int OFFERS_PER_DUTY = 16;
    /** Offers per duty cycle into memory logs: the cycle has only liveness and failures to look at. */
    static final int LOG_OFFERS_PER_DUTY = 256;
    /**
     * The least time between two reaps of the completion queue of a publication into memory logs:
     * only failures come there. The shm queue pair checks its peer and beats its device's heartbeat
     * once every {@code ShmQueuePair.ROUNDS_PER_CLOCK_READ} polls when idle, so a lost subscriber is
     * found up to some 16 ms after it went (a peer that goes away leaves its mapped ring to be
     * written harmlessly meanwhile; the heartbeat is seconds from a peer's timeout). A cycle under
     * load can take tens of microseconds, so a much shorter interval would still reap at nearly every
     * cycle of a thread that owns many publications.
     */
    static final long LOG_COMPLETION_POLL_INTERVAL_NS = 1_000_000;
    /** {@link #publishFrame}'s message length for a frame that ends no message (a fragment, PAD, heartbeat). */
    private static final int NO_MESSAGE = -1;

    private final ChannelUri channel;
    private final int streamId;
    private final Device device;
    private final MemoryRegion staging;
    /** Lays frames out in staging, to be written or copied to the subscribers. */
    private final FrameAppender stagingAppender;
    /** Where the next frame is laid out: staging, or the one subscriber's memory log (direct). */
    private FrameAppender appender;
    /** Frames are laid out in the subscriber's memory log itself, and published by their commit. */
    private boolean direct;
    /** The subscribers' rings are memory logs this process writes with its own stores. */
    private final boolean memoryLog;
    /** Checksums while a connected subscriber wants them. */
    private final FrameSigner signer;
    /** The trailer the frame of the open claim was laid out with. */
    private int claimedTrailerLength;
    private final int capacity;
    private final int maxPayloadLength;
    private final int maxMessageLength;
    private final int maxInline;
    private final int signalInterval;
    private final PublicationCounters counters;
    private final PublicationDestinations destinations;
    /** {@link PublicationDestinations#all}, which the posting and credit loops walk. */
    private final PublicationDestination[] destinationArray;
    private final PublicationCredit credit;
    private final PublicationDuty duty;

    private long position;
    private int postsSinceSignal;
    private long framesPublished;
    private boolean closed;
    /**
     * The claim {@link #tryClaim} handed out and not yet committed or aborted, or null: while there
     * is one the duty cycle waits for it, and a close gives it up.
     */
    private BufferClaim openClaim;
    // Counted in plain fields on the hot path and copied into the counters file by the duty cycle.
    private long messagesSent;
    private long bytesSent;
    private long backPressuredCount;
    /** {@link #messagesSent} plus {@link #backPressuredCount} when the counters were last copied. */
    private long countedAtCopy;
    /**
     * When {@link #duty} has work next: a cycle before then returns at once, so a thread that owns
     * many publications reads one field of each per cycle rather than their duty and destinations.
     */
    private long dutyDueNs;
    /** A connection changed outside the duty's run: the next cycle runs it whatever the clock. */
    private boolean dutyDueNow;
    /** Some subscriber was connected at the last connection change. */
    private boolean connectedAtLastChange;
    /** It reconnected after losing every subscriber, and no offer or claim has said so yet. */
    private boolean reconnectUnseen;

    private Publication(final MessagingContext context, final ChannelUri channel, final int streamId,
        final long initialPosition)
    {
        this.position = initialPosition;
        this.channel = channel;
        this.streamId = streamId;
        final List<InetSocketAddress> endpoints = channel.endpoints();
        for (final InetSocketAddress endpoint : endpoints)
        {
            if (endpoint.getPort() == 0)
            {
                // Port 0 is a subscription's "any free port"; a publication would retry it for ever.
                throw new IllegalArgumentException("channel '" + channel + "': a publication's endpoint " +
                    endpoint.getHostString() + ":0 names no subscriber; give the subscription's port");
            }
        }
        this.device = RdmaProviders.open(context.newRdmaConfig(channel.provider(),
            LocalAddresses.bindAddressFor(channel, endpoints.get(0), false)));
        PublicationCounters created = null;
        try
        {
            final ProtectionDomain domain = device.allocateProtectionDomain();
            final CompletionQueue completionQueue = device.createCompletionQueue(
                PublicationDestinations.completionQueueDepth(device, endpoints.size()));
            this.memoryLog = device.mapsRemoteMemory();
            this.capacity = channel.ringCapacity(context.ringCapacity());
            this.maxPayloadLength = Math.min(FrameDescriptor.maxPayloadLength(capacity),
                device.maxMessageSize() - HEADER_LENGTH - CHECKSUM_LENGTH);
            this.maxMessageLength = capacity / 2 - HEADER_LENGTH;
            this.maxInline = device.maxInlineData();
            this.signalInterval = context.signalInterval();
            this.staging = domain.allocateRegion(capacity, Access.LOCAL_WRITE);
            this.stagingAppender = new FrameAppender(staging.buffer(), memoryLog);
            this.appender = stagingAppender;
            this.signer = new FrameSigner(staging.buffer());
            this.counters = created = PublicationCounters.create(context, channel, streamId, device.counters());
            this.destinations = new PublicationDestinations(context, ChannelKeys.forPublication(context, channel),
                endpoints, device, domain, completionQueue, counters, streamId, capacity, staging.buffer(),
                channel.sessionId(), this::onConnectionChange);
            this.destinationArray = destinations.all;
            this.credit = new PublicationCredit(destinations, completionQueue, destinations.completionHandler, capacity,
                memoryLog);
            this.duty = new PublicationDuty(context, completionQueue, destinations.completionHandler, destinations,
                counters, this::sendHeartbeat, memoryLog ? LOG_OFFERS_PER_DUTY : OFFERS_PER_DUTY,
                TimeUnit.MILLISECONDS.toNanos(channel.slowTimeoutMs()),
                memoryLog ? LOG_COMPLETION_POLL_INTERVAL_NS : 0);
            this.dutyDueNs = System.nanoTime();
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(created, device);
            throw ex;
        }
    }

    /**
     * Opens a publication and connects it to every subscriber the channel names (those that are
     * not there yet are retried by {@link #doWork()} every reconnect interval).
     *
     * @param context  concluded context.
     * @param channel  e.g. {@code ringwire:socket?endpoint=127.0.0.1:40123}.
     * @param streamId the stream.
     * @return the publication.
     */
    public static Publication open(final MessagingContext context, final String channel, final int streamId)
    {
        return open(context, channel, streamId, 0);
    }

    /**
     * Opens a publication whose stream starts at {@code initialPosition} rather than 0: for tests
     * of what happens near the end of the position space.
     *
     * @param context         concluded context.
     * @param channel         the channel.
     * @param streamId        the stream.
     * @param initialPosition a non-negative multiple of {@link FrameDescriptor#LINE_ALIGNMENT}.
     * @return the publication.
     */
    static Publication open(final MessagingContext context, final String channel, final int streamId,
        final long initialPosition)
    {
        if (initialPosition < 0 || (initialPosition & (LINE_ALIGNMENT - 1)) != 0)
        {
            throw new IllegalArgumentException("initial position " + initialPosition + " is not a non-negative multiple of " +
                LINE_ALIGNMENT);
        }
        final Publication publication = new Publication(context, ChannelUri.parse(channel), streamId, initialPosition);
        publication.destinations.connectDisconnected(System.nanoTime(), true, publication.position);
        return publication;
    }

    /**
     * Waits (calling {@link #doWork()}) until a subscriber is connected, for applications that want
     * to start publishing only then.
     *
     * <p>Only this publication is driven meanwhile. A {@link Subscription} answers connection
     * requests only from its own poll, so a subscription owned by the waiting thread accepts no
     * publication until the wait ends. When two sides each publish to the other (ping-pong,
     * request and response) and both wait here, each waits for a subscription that only the other
     * would poll, and both connection requests time out. Such a thread drives both instead: it
     * polls its subscription and calls {@link #doWork()} until {@link #isConnected()} and the
     * subscription has its image.
     *
     * @param timeout how long to wait.
     * @return true when connected.
     */
    public boolean awaitConnected(final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!destinations.isConnected() && System.nanoTime() - deadline < 0)
        {
            doWork();
            Thread.onSpinWait();
        }
        return destinations.isConnected();
    }

    // ---------------------------------------------------------------- accessors

    /** @return the stream id. */
    public int streamId()
    {
        return streamId;
    }

    /** @return the current session id (a new one after every full reconnection). */
    public int sessionId()
    {
        return destinations.sessionId();
    }

    /** @return the stream position: bytes of frames (and padding) written so far. */
    public long position()
    {
        return position;
    }

    /**
     * @return connections made to subscribers over the publication's life: one more for every
     *         subscriber that connects or reconnects, so a change says a subscriber joined anew (and
     *         missed what was offered while it was away).
     */
    public long connections()
    {
        return destinations.connections();
    }

    /** @return true when at least one subscriber is connected. */
    public boolean isConnected()
    {
        return destinations.isConnected();
    }

    /** @return the largest message {@link #offer} takes (half the ring). */
    public int maxMessageLength()
    {
        return maxMessageLength;
    }

    /** @return the largest payload of one frame (and of a {@link #tryClaim}). */
    public int maxPayloadLength()
    {
        return maxPayloadLength;
    }

    /** @return the channel. */
    public String channel()
    {
        return channel.toString();
    }

    /** @return its subscribers, connected or not (tests read them). */
    PublicationDestination[] destinations()
    {
        return destinationArray;
    }

    /** @return this publication's counters (tests read them). */
    PublicationCounters counters()
    {
        return counters;
    }

    /**
     * @return subscribers disconnected for holding this publication back: past its channel's
     *         slow-timeout, or by {@link #disconnectSlowestSubscriber()}.
     */
    public long slowSubscribers()
    {
        return counters.slowSubscribers.get();
    }

    /**
     * Disconnects, now, the subscriber that has held this publication back the longest without a
     * break, at every look of the duty cycle (more than three quarters of its ring unread, or over
     * RDMA no receive posted or no room to send) for 50 ms or more up to the last look, as
     * {@code slow-timeout} does after its timeout: for an owner that keeps a backlog of its own
     * behind the publication and finds it past what it allows, and calls {@link #doWork()} as
     * often as it offers. Such a subscriber may read steadily, a ring per timeout, and still be
     * slower than the stream, which the timeout cannot tell; one keeping up is behind only for a
     * burst's moment. When every one of several subscribers qualifies, none stands out and none is
     * cut (see {@link #disconnectSlowestSubscriber(boolean)}). One at most per call; it counts in
     * {@link #slowSubscribers()} and reconnects at the stream's position, backed off as after a timed
     * cut. Nothing while a claim is open (its frame is in the subscribers' rings).
     *
     * @return subscribers disconnected: 0 or 1.
     */
    public int disconnectSlowestSubscriber()
    {
        return disconnectSlowestSubscriber(false);
    }

    /**
     * {@link #disconnectSlowestSubscriber()}, and where {@code evenIfAllHoldBack}, also when every
     * subscriber qualifies: for an owner that can wait for none of them any longer (what it holds
     * back is worth more than the subscribers), which then cuts them one at a time, the one holding
     * back the longest first. Holding back is what the slow-timeout judges by: over RDMA that counts
     * no receive posted (the reader reposts as it reads) and no room to send (on the software
     * providers, the reader's acknowledgements), which on a hardware NIC may be the link's pace.
     *
     * @param evenIfAllHoldBack cut the slowest also when every connected subscriber holds the
     *                          publication back.
     * @return subscribers disconnected: 0 or 1.
     */
    public int disconnectSlowestSubscriber(final boolean evenIfAllHoldBack)
    {
        if (closed || null != openClaim)
        {
            return 0;
        }
        return destinations.disconnectSlowest(evenIfAllHoldBack);
    }

    /**
     * @return why the last connection attempt of the first disconnected subscriber failed, or null.
     */
    public String lastConnectionError()
    {
        return destinations.lastConnectionError();
    }

    // ---------------------------------------------------------------- offer

    /**
     * Publishes a message (fragmenting it when longer than a frame).
     *
     * @param buffer holding the message.
     * @param offset of the message.
     * @param length of the message, at most {@link #maxMessageLength()}.
     * @return the new stream position, or a negative status.
     * @throws IllegalArgumentException when the message is longer than {@link #maxMessageLength()},
     *                                  or the offset and length do not lie inside the buffer: checked
     *                                  before anything is written, as a copy that failed midway would
     *                                  leave a committed PAD frame, or the first fragments of a
     *                                  message, without the position moving past them.
     * @throws IllegalStateException    when a claim ({@link #tryClaim}) is open.
     */
    public long offer(final DirectBuffer buffer, final int offset, final int length)
    {
        if ((offset | length) < 0 || offset > buffer.capacity() - length)
        {
            throw new IllegalArgumentException("offer of " + length + " bytes at " + offset + " lies outside its " +
                "buffer of " + buffer.capacity() + " bytes");
        }
        final long status = admit();
        if (status < 0)
        {
            return status;
        }
        if (length <= maxPayloadLength)
        {
            final int trailerLength = creditForFrame(length);
            if (trailerLength < 0)
            {
                return backPressured();
            }
            final int frameLength = HEADER_LENGTH + length + trailerLength;
            final int frameOffset = publishPadding(appender.appendData(position, (byte)(UNFRAGMENTED | signer.flag()),
                buffer, offset, length, trailerLength, sessionStreamWord()));
            return dutyAfterOffer(publishFrame(frameOffset, frameLength, length));
        }
        return offerFragmented(buffer, offset, length);
    }

    private long offerFragmented(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length > maxMessageLength)
        {
            throw new IllegalArgumentException("message of " + length + " bytes exceeds the maximum of " +
                maxMessageLength + " (half the ring of " + capacity + " bytes; raise ring= in the channel)");
        }
        if (!hasCreditForMessage(length))
        {
            return backPressured();
        }
        final long sessionStreamWord = sessionStreamWord();
        long result = position;
        for (int sent = 0; sent < length && result >= 0; sent += maxPayloadLength)
        {
            final int fragment = Math.min(maxPayloadLength, length - sent);
            final boolean last = sent + fragment == length;
            final byte flags = (byte)((sent == 0 ? BEGIN_FLAG : 0) | (last ? END_FLAG : 0) | signer.flag());
            final int frameOffset = publishPadding(appender.appendData(position, flags, buffer, offset + sent, fragment,
                signer.trailerLength(), sessionStreamWord));
            result = publishFrame(frameOffset, HEADER_LENGTH + fragment + signer.trailerLength(),
                last ? length : NO_MESSAGE);
        }
        return dutyAfterOffer(result);
    }

    /**
     * Claims space for one frame so the caller encodes straight into registered memory; then
     * {@link BufferClaim#commit()} sends it (or {@link BufferClaim#abort()} turns it into padding).
     *
     * @param length payload bytes, at most {@link #maxPayloadLength()}.
     * @param claim  receives the buffer, offset and length to encode into.
     * @return the stream position after the frame, or a negative status.
     * @throws IllegalArgumentException when the length is negative or more than one frame's payload.
     * @throws IllegalStateException    when another claim is open: one claim at a time, committed or
     *                                  aborted before the next offer or claim.
     */
    public long tryClaim(final int length, final BufferClaim claim)
    {
        if (length < 0 || length > maxPayloadLength)
        {
            throw new IllegalArgumentException("claim of " + length + " bytes: not 0 to one frame's payload of " +
                maxPayloadLength);
        }
        final long status = admit();
        if (status < 0)
        {
            return status;
        }
        final int trailerLength = creditForFrame(length);
        if (trailerLength < 0)
        {
            return backPressured();
        }
        final int frameLength = HEADER_LENGTH + length + trailerLength;
        final int frameOffset = publishPadding(appender.claim(position, frameLength, (byte)(UNFRAGMENTED | signer.flag()),
            TYPE_DATA, sessionStreamWord()));
        claimedTrailerLength = trailerLength;
        claim.wrap(this, appender.buffer(), frameOffset, frameLength - trailerLength);
        openClaim = claim;
        return position + appender.alignedLength(frameLength);
    }

    /** Called by {@link BufferClaim#commit()}: the claimed frame, header and payload, starts at the position. */
    long commitClaim(final int claimedLength)
    {
        if (closed)
        {
            return CLOSED; // the close gave the claim up
        }
        openClaim = null;
        final int frameLength = claimedLength + claimedTrailerLength;
        appender.commit(position, sessionStreamWord());
        return dutyAfterOffer(publishFrame(appender.offset(position), frameLength,
            frameLength - HEADER_LENGTH - claimedTrailerLength));
    }

    /** Called by {@link BufferClaim#abort()}: the claimed frame, at the position, becomes padding. */
    long abortClaim(final int claimedLength)
    {
        if (closed)
        {
            return CLOSED;
        }
        openClaim = null;
        final int frameLength = claimedLength + claimedTrailerLength;
        appender.abort(position, frameLength, sessionStreamWord());
        appender.commit(position, sessionStreamWord());
        return dutyAfterOffer(publishFrame(appender.offset(position), frameLength, NO_MESSAGE));
    }

    private long admit()
    {
        if (closed)
        {
            return CLOSED;
        }
        if (null != openClaim)
        {
            // The claim holds the frame at the position until its commit: another frame there would
            // be written over it, and the commit would publish whatever follows as a second frame.
            throw new IllegalStateException("a claim is open on this publication: commit or abort it before the " +
                "next offer or claim");
        }
        if (!destinations.isConnected() || reconnectUnseen)
        {
            if (!destinations.isConnected())
            {
                doWork();
                if (!destinations.isConnected())
                {
                    return NOT_CONNECTED;
                }
            }
            if (reconnectUnseen)
            {
                reconnectUnseen = false;
                return ADMIN_ACTION; // reconnected, under a new session: the caller retries into it
            }
        }
        if (position > Long.MAX_VALUE - 2L * capacity)
        {
            return MAX_POSITION_EXCEEDED;
        }
        return 0;
    }

    /**
     * Counts an offer attempt that got past {@link #admit()} and, every {@link #OFFERS_PER_DUTY}th
     * ({@link #LOG_OFFERS_PER_DUTY}th into memory logs),
     * runs the duty cycle: after the frame went out, not before it.
     *
     * @param result what the attempt returns.
     * @return {@code result}.
     */
    private long dutyAfterOffer(final long result)
    {
        if (duty.offerAttempted())
        {
            doWork();
        }
        return result;
    }

    private long backPressured()
    {
        backPressuredCount++;
        dutyAfterOffer(0);
        return destinations.isConnected() ? BACK_PRESSURED : NOT_CONNECTED;
    }

    /**
     * After a subscriber connected or went: its credit, whether frames carry checksums, and where
     * frames are laid out: straight into the one subscriber's memory log when there is one and no
     * checksum is wanted (the checksum covers the position word, which a memory log's reader takes as
     * the frame's commit, so a checksummed frame is signed in staging and copied), else in staging.
     */
    private void onConnectionChange()
    {
        dutyDueNow = true;
        final boolean connected = destinations.isConnected();
        if (connected && !connectedAtLastChange && destinations.connections() > 1)
        {
            // Wherever the reconnection ran (an offer's duty cycle or the owner's doWork), the next
            // offer or claim says so once.
            reconnectUnseen = true;
        }
        connectedAtLastChange = connected;
        credit.refresh(position);
        signer.checksums(destinations.checksumsWanted());
        final PublicationDestination only = destinationArray.length == 1 ? destinationArray[0] : null;
        direct = memoryLog && null != only && only.connected && 0 == signer.trailerLength();
        appender = direct ? only.logAppender() : stagingAppender;
    }

    /**
     * Credit for one frame of {@code length} payload bytes and the trailer the subscribers want:
     * reading the credit may poll the completion queue, where a subscriber that wants checksums
     * connects or goes, so the trailer is read again after it, and the frame's length, its CHECKSUM
     * flag and its signing agree.
     *
     * @return the frame's trailer length, or -1 without credit for it.
     */
    private int creditForFrame(final int length)
    {
        int trailerLength = signer.trailerLength();
        while (hasCreditForFrame(HEADER_LENGTH + length + trailerLength))
        {
            final int now = signer.trailerLength();
            if (now == trailerLength)
            {
                return trailerLength;
            }
            trailerLength = now;
        }
        return -1;
    }

    /**
     * Credit for one frame at the position, and for the PAD frame it needs before it where it does
     * not fit before the end of the ring.
     */
    private boolean hasCreditForFrame(final int frameLength)
    {
        final int padding = appender.padding(position, frameLength);
        return credit.hasCredit(position, padding + appender.alignedLength(frameLength), padding == 0 ? 1 : 2);
    }

    /** Credit for a whole fragmented message at once: every fragment and every PAD frame it will need. */
    private boolean hasCreditForMessage(final int length)
    {
        long end = position;
        int frames = 0;
        for (int remaining = length; remaining > 0; remaining -= maxPayloadLength)
        {
            final int frameLength = HEADER_LENGTH + Math.min(remaining, maxPayloadLength) + signer.trailerLength();
            final int padding = appender.padding(end, frameLength);
            frames += padding == 0 ? 1 : 2;
            end += padding + appender.alignedLength(frameLength);
        }
        return credit.hasCredit(position, end - position, frames);
    }

    /**
     * Publishes the PAD frame the appender wrote in front of a frame it placed at
     * {@code framePosition}, if it wrote one.
     *
     * @return the frame's offset in the ring.
     */
    private int publishPadding(final long framePosition)
    {
        if (framePosition != position)
        {
            publishFrame(appender.offset(position), (int)(framePosition - position), NO_MESSAGE);
        }
        return appender.offset(framePosition);
    }

    private long sessionStreamWord()
    {
        return FrameDescriptor.sessionStreamWord(destinations.sessionId(), streamId);
    }

    /**
     * Publishes the frame laid out and committed at {@code frameOffset} at the position and advances
     * the position: in a memory log written directly, the commit published it; otherwise it is signed
     * in staging and then written
     * into every connected subscriber's ring (an RDMA WRITE WITH IMMEDIATE each, or, in memory logs,
     * a copy committed like a direct frame).
     */
    private long publishFrame(final int frameOffset, final int frameLength, final int messageLength)
    {
        final long framePosition = position;
        if (!direct)
        {
            signer.sign(frameOffset, frameLength);
            if (memoryLog)
            {
                for (final PublicationDestination destination : destinationArray)
                {
                    if (destination.connected)
                    {
                        destination.copyFrame(staging.buffer(), frameOffset, frameLength, framePosition, sessionStreamWord());
                    }
                }
            }
            else
            {
                postToDestinations(frameOffset, frameLength);
            }
        }
        credit.framePosted();
        position += appender.alignedLength(frameLength);
        framesPublished++;
        if (messageLength != NO_MESSAGE) // an empty message is one too, as its subscriber counts it
        {
            messagesSent++;
            bytesSent += messageLength;
        }
        return destinations.isConnected() ? position : NOT_CONNECTED;
    }

    private void postToDestinations(final int frameOffset, final int frameLength)
    {
        final boolean signal = ++postsSinceSignal >= signalInterval;
        if (signal)
        {
            postsSinceSignal = 0;
        }
        final int flags = (frameLength <= maxInline ? SendFlags.INLINE : 0) | (signal ? SendFlags.SIGNALED : 0);
        for (final PublicationDestination destination : destinationArray)
        {
            if (destination.connected)
            {
                destinations.post(destination, position, staging, frameOffset, frameLength, flags);
            }
        }
    }

    // ---------------------------------------------------------------- duty cycle

    /**
     * Housekeeping for the owning thread when it has nothing to offer: reaps completions (a failed
     * one disconnects its subscriber), sends a heartbeat when idle, declares silent subscribers
     * gone after the liveness timeout, and reconnects disconnected ones every reconnect interval.
     *
     * @return work done.
     */
    public int doWork()
    {
        return doWork(System.nanoTime());
    }

    /**
     * {@link #doWork()} on the clock the owner's duty cycle already read: a thread that owns many
     * publications (a gateway's, one a client) reads the clock once a cycle rather than once each.
     * Into memory logs with every subscriber connected, the cycle has work only every so often (a
     * completion reap, the slow part's pass): until then a call copies the counters where they
     * changed and returns.
     *
     * @param nowNs {@link System#nanoTime()}, read in this duty cycle.
     * @return work done.
     */
    public int doWork(final long nowNs)
    {
        if (closed || null != openClaim)
        {
            return 0; // an open claim holds the position: a heartbeat or a reconnection would write over it
        }
        final long counted = messagesSent + backPressuredCount;
        if (counted != countedAtCopy)
        {
            countedAtCopy = counted;
            counters.messagesSent.setRelease(messagesSent);
            counters.bytesSent.setRelease(bytesSent);
            counters.backPressured.setRelease(backPressuredCount);
        }
        if (!dutyDueNow && nowNs - dutyDueNs < 0)
        {
            return 0;
        }
        dutyDueNow = false;
        final int work = duty.doWork(position, framesPublished, nowNs);
        dutyDueNs = duty.nextDueNs(nowNs);
        return work;
    }

    /** @return when the duty cycle has work next, where no connection changed meanwhile (tests). */
    long dutyDueNs()
    {
        return dutyDueNs;
    }

    /** @return whether a cycle at {@code nowNs} would run the duty (tests). */
    boolean dutyDue(final long nowNs)
    {
        return dutyDueNow || nowNs - dutyDueNs >= 0;
    }

    /**
     * The duty cycle's heartbeat: an empty frame, so idle subscribers know the publication lives; or,
     * where a subscriber's full ring leaves no room for one, a keepalive to each subscriber, which
     * takes no place in the stream (a subscriber that has read everything hears nothing else).
     */
    private int sendHeartbeat()
    {
        final int frameLength = HEADER_LENGTH + signer.trailerLength();
        if (!hasCreditForFrame(frameLength))
        {
            final int sent = destinations.sendKeepalives(position, staging);
            if (sent > 0)
            {
                credit.refresh(position); // a keepalive took a receive a frame would have counted on
            }
            return sent;
        }
        final int frameOffset = publishPadding(appender.claim(position, frameLength,
            (byte)(UNFRAGMENTED | signer.flag()), TYPE_HEARTBEAT, sessionStreamWord()));
        appender.commit(position, sessionStreamWord());
        publishFrame(frameOffset, frameLength, NO_MESSAGE);
        counters.heartbeatsSent.incrementRelease();
        return 1;
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        if (null != openClaim)
        {
            // Given up as padding, so subscribers read past it; the claim's commit then returns
            // CLOSED, and its buffer no longer points into a ring that is about to be unmapped.
            final BufferClaim claim = openClaim;
            abortClaim(claim.buffer().capacity());
            claim.detach();
        }
        closed = true;
        CloseHelper.quietCloseAll(destinations, counters, device);
    }

    @Override
    public String toString()
    {
        return "Publication{channel=" + channel + ", stream=" + streamId + ", session=" + destinations.sessionId() +
            ", position=" + position + ", connected=" + destinations + '}';
    }
}
