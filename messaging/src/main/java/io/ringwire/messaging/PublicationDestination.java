package io.ringwire.messaging;

import io.ringwire.messaging.protocol.CreditLayout;
import io.ringwire.messaging.protocol.FrameAppender;
import io.ringwire.messaging.protocol.FrameDescriptor;
import io.ringwire.messaging.protocol.JoinLayout;
import io.ringwire.messaging.protocol.LogReader;
import io.ringwire.messaging.protocol.SessionSetup;
import io.ringwire.rdma.Access;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.SendFlags;
import io.ringwire.rdma.cm.Connection;
import io.ringwire.rdma.cm.ConnectionManager;
import io.ringwire.rdma.cm.ConnectionManagerConfig;
import io.ringwire.rdma.cm.RegionAdvertisement;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AtomicBuffer;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * One subscriber of a publication: the queue pair to it, where its ring is (address, rkey), and the
 * credit region it writes its consumed position and liveness counter into.
 *
 * <p>Threading: the publication's owning thread. The handshake runs on a virtual thread against a
 * {@link HandshakeQueuePair}; the owning thread adopts its outcome and moves the queue pair to RTS.
 */
final class PublicationDestination implements AutoCloseable
{
    static final long NOT_HOLDING_BACK = Long.MIN_VALUE;
    /** {@link #resendFrom}: nothing to write again on the next connection. */
    static final long NO_RESEND = -1;

    final InetSocketAddress endpoint;
    private final MemoryRegion credit;
    private final AtomicBuffer creditBuffer;
    private final MemoryRegion join;
    private final AtomicBuffer joinBuffer;
    QueuePair queuePair;
    private long remoteRingAddress;
    private int remoteRingKey;
    /** The subscriber's ring, for this process's stores, when it is a memory log; null over RDMA. */
    private AtomicBuffer logRing;
    private FrameAppender logAppender;
    boolean connected;
    /** The connected subscriber wants every data frame checksummed (its answer's setup said so). */
    boolean frameChecksums;
    /** Requests sent on this connection that consume a receive at the subscriber (JOIN, every frame, keepalives). */
    private long receiveConsumingRequests;
    /** Keepalives given a memory log's subscriber: the beat in the credit region. */
    private long beats;
    private long lastLivenessCounter = -1;
    private long lastLivenessChangeNs;
    /**
     * When it began to hold the publication back, as the duty cycle saw it; {@link #NOT_HOLDING_BACK}
     * while it does not.
     */
    long holdingBackSinceNs = NOT_HOLDING_BACK;
    /** Its consumed position when it began to hold the publication back. */
    long consumedWhenHoldingBackBegan;
    /**
     * Since when it has held the publication back at every look of the duty cycle, whatever it
     * read meanwhile; {@link #NOT_HOLDING_BACK} while it does not.
     */
    long blockingSinceNs = NOT_HOLDING_BACK;
    long lastAttemptNs = Long.MIN_VALUE / 2;
    /** Slow-consumer cuts in a row: each one waits longer before the reconnection. */
    int slowCuts;
    /** After a slow-consumer cut, no reconnection attempt before this time. */
    long reconnectNotBeforeNs = Long.MIN_VALUE / 2;
    /** When it last joined. */
    long joinedNs;
    String lastError;
    private Attempt attempt;
    /** The session and stream word of the connection last made. */
    private long connectedSessionStreamWord;
    /** The number of the connection last joined (its JOIN carries it), counting from 1; never 0. */
    private int connection;
    /** Where frames a closed image left unread begin in staging, or {@link #NO_RESEND}. */
    private long resendFrom = NO_RESEND;
    /** Where they end: the publication's position when they were taken from the ring. */
    private long resendTo;
    /** The session and stream word those frames carry. */
    private long resendSessionStreamWord;
    /** The last join dropped the frames taken instead of writing them again. */
    private boolean unreadDropped;

    private final boolean memoryLog;

    /**
     * @param memoryLog whether subscribers' rings are memory logs (the provider shares memory).
     */
    PublicationDestination(final InetSocketAddress endpoint, final ProtectionDomain domain, final boolean memoryLog)
    {
        this.endpoint = endpoint;
        this.memoryLog = memoryLog;
        this.credit = domain.allocateRegion(CreditLayout.REGION_LENGTH, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        this.creditBuffer = credit.buffer();
        this.join = domain.allocateRegion(JoinLayout.REGION_LENGTH, Access.LOCAL_WRITE);
        this.joinBuffer = join.buffer();
    }

    /**
     * Starts connecting (or reconnecting) through the subscriber's connection manager: the queue
     * pair is created here, the handshake runs on a virtual thread (it waits on the network, and
     * the subscriber may be polled by this very thread), and {@link #completeConnect} adopts the
     * result on the owning thread.
     *
     * @return true when an attempt was started.
     */
    boolean beginConnect(final ProtectionDomain domain, final QueuePairConfig queuePairConfig, final SessionSetup setup,
        final ConnectionManagerConfig cmConfig, final long nowNs)
    {
        if (null != attempt)
        {
            return false;
        }
        lastAttemptNs = nowNs;
        closeQueuePair();
        creditBuffer.putLongRelease(CreditLayout.CONSUMED_POSITION_OFFSET, setup.initialPosition());
        creditBuffer.putLongRelease(CreditLayout.LIVENESS_COUNTER_OFFSET, 0);
        creditBuffer.putLongRelease(CreditLayout.RECEIVES_POSTED_OFFSET, CreditLayout.INITIAL_RECEIVES);
        creditBuffer.putLongRelease(CreditLayout.CLOSED_MARK_OFFSET, 0);
        receiveConsumingRequests = 0;
        QueuePair candidate = null;
        try
        {
            candidate = domain.createQueuePair(queuePairConfig);
            candidate.modifyToInit();
        }
        catch (final RuntimeException | OutOfMemoryError ex)
        {
            // Out of queue pairs, files or memory (shm makes a ring file for each): this attempt
            // fails as one the subscriber refused would, and the next comes after the interval.
            CloseHelper.quietClose(candidate);
            lastError = "cannot make a queue pair for the connection: " + ex.getMessage();
            return false;
        }
        final HandshakeQueuePair handshakeQueuePair = new HandshakeQueuePair(candidate);
        final Attempt started = new Attempt(handshakeQueuePair, setup);
        attempt = started;
        final List<RegionAdvertisement> regions =
            List.of(new RegionAdvertisement(credit.address(), credit.rkey(), credit.length()));
        Thread.ofVirtual().name("ringwire-connect-" + endpoint).start(() ->
        {
            try
            {
                started.connection = ConnectionManager.connect(endpoint, handshakeQueuePair, regions, setup.encode(),
                    cmConfig);
            }
            catch (final RuntimeException ex)
            {
                started.error = ex.getMessage();
            }
            started.done = true;
        });
        return true;
    }

    /**
     * Adopts a finished connection attempt. Owning thread.
     *
     * @return 1 when connected, 0 when still connecting, -1 when the attempt failed.
     */
    int completeConnect(final long nowNs)
    {
        final Attempt finished = attempt;
        if (null == finished || !finished.done)
        {
            return 0;
        }
        attempt = null;
        final Connection connection = finished.connection;
        try
        {
            if (null == connection)
            {
                throw new RdmaException(finished.error);
            }
            final SessionSetup answer = SessionSetup.decode(connection.remoteApplicationData());
            final SessionSetup setup = finished.setup;
            if (answer.streamId() != setup.streamId() || answer.sessionId() != setup.sessionId() ||
                connection.remoteRegions().size() != 1 || connection.remoteRegions().get(0).length() != setup.ringCapacity() ||
                (connection.remoteRegions().get(0).address() & (Long.BYTES - 1)) != 0) // a header word across two lines
            {
                throw new RdmaException("subscriber at " + endpoint + " answered with an unexpected setup " + answer +
                    " and regions " + connection.remoteRegions());
            }
            remoteRingAddress = connection.remoteRegions().get(0).address();
            remoteRingKey = connection.remoteRegions().get(0).rkey();
            frameChecksums = answer.frameChecksums();
            connectedSessionStreamWord = FrameDescriptor.sessionStreamWord(setup.sessionId(), setup.streamId());
            finished.queuePair.applyReadyToSend();
            queuePair = finished.queuePair.real();
            if (answer.memoryLog() != memoryLog)
            {
                throw new RdmaException("subscriber at " + endpoint + " " + (answer.memoryLog() ? "keeps" : "does not " +
                    "keep") + " a memory log, and this publication " + (memoryLog ? "writes" : "does not write") +
                    " one: both ends must be on the same provider");
            }
            if (memoryLog)
            {
                logRing = queuePair.remoteBuffer(remoteRingAddress, remoteRingKey, setup.ringCapacity());
                if (null == logRing)
                {
                    throw new RdmaException("the ring of the subscriber at " + endpoint + " cannot be mapped for " +
                        "this process's stores (rkey 0x" + Integer.toHexString(remoteRingKey) + ")");
                }
                logAppender = new FrameAppender(logRing, true);
            }
            connected = true;
            lastLivenessCounter = 0;
            lastLivenessChangeNs = nowNs;
            lastError = null;
            return 1;
        }
        catch (final RuntimeException ex)
        {
            lastError = ex.getMessage();
            CloseHelper.quietClose(finished.queuePair.real());
            queuePair = null;
            logRing = null;
            logAppender = null;
            return -1;
        }
    }

    /**
     * Tells the new subscriber where the stream is now: the first request on a new connection is
     * an inline SEND of the current position, so the subscriber's image starts exactly where the
     * next frame will be, however far the stream moved while the handshake ran (fan-out joins).
     *
     * <p>Where {@link #takeUnread} took frames a closed image of this subscriber left unread, and
     * the stream has not moved since, the image starts where the closed one stopped instead, and
     * those frames are written again into the new ring first, under the new session, so that
     * what offers accepted while the subscriber closed its image (its application closed it, or
     * took the publication for gone while this process stalled) is read once. Frames taken are
     * dropped instead, and {@link #unreadDropped} says so, when the stream moved meanwhile, the new
     * subscriber wants checksums (they would cover the old session), or a frame taken is not
     * whole.
     *
     * @param position the publication's current position.
     * @param staging  the publication's staging buffer, holding the frames taken.
     * @return frames written again (0 or more) when sent; -1 when not, which disconnects the
     *         destination again (the frames taken wait for the next connection).
     */
    long join(final long position, final AtomicBuffer staging)
    {
        final long from = resendFrom;
        final boolean resend = from != NO_RESEND && resendTo == position && !frameChecksums &&
            null != logAppender && framesTaken(staging, from, position);
        unreadDropped = from != NO_RESEND && !resend;
        final long joinPosition = resend ? from : position;
        creditBuffer.putLongRelease(CreditLayout.CONSUMED_POSITION_OFFSET, joinPosition);
        connection = connection == -1 ? 1 : connection + 1;
        joinBuffer.putLong(JoinLayout.POSITION_OFFSET, joinPosition, FrameDescriptor.ORDER);
        joinBuffer.putInt(JoinLayout.CONNECTION_OFFSET, connection, FrameDescriptor.ORDER);
        final int result = queuePair.postSend(joinPosition, join, 0, JoinLayout.LENGTH, SendFlags.INLINE);
        if (result != PostResult.OK)
        {
            unreadDropped = false;
            disconnect("could not send the join position: " + PostResult.name(result));
            return -1;
        }
        resendFrom = NO_RESEND;
        receiveConsumingRequests = 1;
        return resend ? writeAgain(staging, joinPosition, position) : 0;
    }

    /** @return whether the last {@link #join} dropped frames a closed image had left unread. */
    boolean unreadDropped()
    {
        return unreadDropped;
    }

    /** @return the credit region its subscriber writes into (tests write what a subscriber could). */
    AtomicBuffer creditBuffer()
    {
        return creditBuffer;
    }

    /**
     * Before the queue pair to a memory log is let go for a new connection: where its image wrote
     * its closed mark for the connection let go (see {@link CreditLayout}) with frames unread before
     * {@code position}, copies them from its ring into staging at their offsets, for
     * {@link #join} to write again. The ring is still mapped here, whatever the subscriber did with
     * its own mapping. Frames are taken from the start of a message the image had read only part
     * of (the image credits no further than that start, so the ring holds it), else from where the
     * image stopped reading. Nothing is taken (what an earlier connection's image left stays taken) when
     * there was no connection since the last attempt, or the image did not close, read everything,
     * or left a position off the frame grid or more than a ring behind; the frames themselves are
     * checked by {@link #join}.
     *
     * @param staging  the publication's staging buffer, as large as the ring.
     * @param position the publication's position: where the frames it stored in the ring end.
     */
    void takeUnread(final AtomicBuffer staging, final long position)
    {
        final AtomicBuffer ring = logRing;
        if (null == ring)
        {
            return; // no connection since the last attempt: what that one took stays for the next
        }
        // What an earlier connection's image left stays taken until a join clears it: no connection
        // since has carried those frames.
        if (creditBuffer.getLongAcquire(CreditLayout.CLOSED_MARK_OFFSET) !=
            CreditLayout.closedMark((int)connectedSessionStreamWord, connection))
        {
            return;
        }
        final int capacity = ring.capacity();
        final long readTo = creditBuffer.getLong(CreditLayout.CLOSED_POSITION_OFFSET);
        final long messageStart = creditBuffer.getLong(CreditLayout.CLOSED_MESSAGE_START_OFFSET);
        // From the start of a message the image had read only part of: its credit held there, so the
        // ring still holds it whole. A start the ring no longer holds (an image that credited past
        // it) leaves the resend from where it stopped, that message's later fragments then lost to
        // the next image's assembler.
        // The subscriber wrote both: each must be a stream position (never negative) in the ring's
        // reach behind this one, compared without a subtraction that could overflow.
        final long closedAt = messageStart >= 0 && messageStart <= readTo && messageStart >= position - capacity ?
            messageStart : readTo;
        if (closedAt < 0 || closedAt >= position || closedAt < position - capacity ||
            (closedAt & (FrameDescriptor.LINE_ALIGNMENT - 1)) != 0)
        {
            return;
        }
        final int length = (int)(position - closedAt);
        final int offset = (int)closedAt & (capacity - 1);
        final int first = Math.min(length, capacity - offset); // the rest wraps to the ring's start
        staging.putBytes(offset, ring, offset, first);
        staging.putBytes(0, ring, 0, length - first);
        resendFrom = closedAt;
        resendTo = position;
        resendSessionStreamWord = connectedSessionStreamWord;
    }

    /**
     * @return whether the frames from {@code from} to {@code to} in staging are each committed there
     *         for the session they were taken under, whole and without a checksum trailer (which
     *         would cover the old session), ending exactly at {@code to}.
     */
    private boolean framesTaken(final AtomicBuffer staging, final long from, final long to)
    {
        final LogReader reader = new LogReader(staging, resendSessionStreamWord);
        long position = from;
        while (position < to)
        {
            final long lengthWord = reader.next(position);
            if (lengthWord == LogReader.NONE || lengthWord == LogReader.BROKEN ||
                (FrameDescriptor.flags(lengthWord) & FrameDescriptor.CHECKSUM_FLAG) != 0)
            {
                return false;
            }
            position = reader.consume(position, (int)lengthWord);
        }
        return position == to;
    }

    /**
     * Writes the frames {@link #framesTaken} checked into the new connection's ring, at the same
     * offsets, under its session: each one's header takes the new session in staging, and
     * {@link #copyFrame} copies and commits it like any frame laid out there.
     *
     * @return frames written.
     */
    private long writeAgain(final AtomicBuffer staging, final long from, final long to)
    {
        final int mask = staging.capacity() - 1;
        long frames = 0;
        long position = from;
        while (position < to)
        {
            final int offset = (int)position & mask;
            final int frameLength = staging.getInt(offset + FrameDescriptor.FRAME_LENGTH_OFFSET, FrameDescriptor.ORDER);
            staging.putLong(offset + FrameDescriptor.SESSION_ID_OFFSET, connectedSessionStreamWord,
                FrameDescriptor.ORDER);
            copyFrame(staging, offset, frameLength, position, connectedSessionStreamWord);
            position += logAppender.alignedLength(frameLength);
            frames++;
        }
        return frames;
    }

    /** @return true while a connection attempt runs. */
    boolean isConnecting()
    {
        return null != attempt;
    }

    /** A connection attempt handed to a virtual thread. */
    private static final class Attempt
    {
        final HandshakeQueuePair queuePair;
        final SessionSetup setup;
        Connection connection;
        String error;
        volatile boolean done; // written last by the connecting thread: publishes connection and error

        Attempt(final HandshakeQueuePair queuePair, final SessionSetup setup)
        {
            this.queuePair = queuePair;
            this.setup = setup;
        }
    }

    /**
     * @return the subscriber's consumed position, as last written into our credit region.
     */
    long consumedPosition()
    {
        return creditBuffer.getLongAcquire(CreditLayout.CONSUMED_POSITION_OFFSET);
    }

    /**
     * @return how many more frames the subscriber has receives posted for: the receives it last
     *         credited less the requests sent that consume one.
     */
    long receiveHeadroom()
    {
        return creditBuffer.getLongAcquire(CreditLayout.RECEIVES_POSTED_OFFSET) - receiveConsumingRequests;
    }

    /**
     * Notes whether the subscriber's liveness counter moved since the last look.
     *
     * @param nowNs     the time now.
     * @param timeoutNs the liveness timeout.
     * @return true when the counter has not moved for longer than the timeout.
     */
    boolean isSilent(final long nowNs, final long timeoutNs)
    {
        final long counter = creditBuffer.getLongAcquire(CreditLayout.LIVENESS_COUNTER_OFFSET);
        if (counter != lastLivenessCounter)
        {
            lastLivenessCounter = counter;
            lastLivenessChangeNs = nowNs;
            return false;
        }
        return nowNs - lastLivenessChangeNs > timeoutNs;
    }

    /**
     * Writes a frame of the staging region into the same offset of the subscriber's ring, with one
     * WRITE WITH IMMEDIATE whose immediate is the frame length.
     *
     * @param position    the frame's stream position (the work request id).
     * @param staging     the publication's staging region.
     * @param frameOffset where the frame lies, in staging and in the ring.
     * @param frameLength header plus payload.
     * @param flags       {@link SendFlags}.
     * @return the {@link PostResult}.
     */
    int postFrame(final long position, final MemoryRegion staging, final int frameOffset, final int frameLength,
        final int flags)
    {
        final int result = queuePair.postWriteWithImmediate(position, staging, frameOffset, frameLength,
            remoteRingAddress + frameOffset, remoteRingKey, frameLength, flags);
        if (result == PostResult.OK)
        {
            receiveConsumingRequests++;
        }
        return result;
    }

    /**
     * Tells the subscriber the publication lives without a frame: over RDMA a signaled WRITE WITH
     * IMMEDIATE of no bytes ({@link FrameDescriptor#KEEPALIVE_IMMEDIATE}) where it has a receive
     * posted and the queue pair room; into a memory log, a raised beat in the credit region.
     *
     * @param position the publication's position (the work request id).
     * @param staging  the publication's staging region (no byte of it is sent).
     * @return {@link PostResult#OK} when sent, {@link PostResult#QUEUE_FULL} when it could not go now
     *         (no receive posted, which a subscriber with frames unread needs no keepalive for), or
     *         the post's failure.
     */
    int sendKeepalive(final long position, final MemoryRegion staging)
    {
        if (null != logRing)
        {
            creditBuffer.putLongRelease(CreditLayout.PUBLICATION_BEAT_OFFSET, ++beats);
            return PostResult.OK;
        }
        if (receiveHeadroom() < 1 || !queuePair.canPostSends(1, 0))
        {
            return PostResult.QUEUE_FULL;
        }
        // Signaled: an idle stream posts nothing else whose completion would free its slot.
        final int result = queuePair.postWriteWithImmediate(position, staging, 0, 0, remoteRingAddress, remoteRingKey,
            FrameDescriptor.KEEPALIVE_IMMEDIATE, SendFlags.SIGNALED);
        if (result == PostResult.OK)
        {
            receiveConsumingRequests++;
        }
        return result;
    }

    /** @return an appender over the subscriber's memory log; null unless connected to one. */
    FrameAppender logAppender()
    {
        return logAppender;
    }

    /**
     * Copies a frame laid out and signed in staging into the subscriber's memory log at the same
     * offset, and commits it there: every byte but the position word, then the position word with
     * release order.
     *
     * @param staging           the publication's staging buffer.
     * @param frameOffset       where the frame lies, in staging and in the ring.
     * @param frameLength       header plus payload.
     * @param framePosition     the frame's stream position.
     * @param sessionStreamWord the publication's {@link FrameDescriptor#sessionStreamWord}.
     */
    void copyFrame(final AtomicBuffer staging, final int frameOffset, final int frameLength, final long framePosition,
        final long sessionStreamWord)
    {
        logRing.putBytes(frameOffset, staging, frameOffset, FrameDescriptor.POSITION_OFFSET);
        logRing.putBytes(frameOffset + FrameDescriptor.HEADER_LENGTH, staging, frameOffset +
            FrameDescriptor.HEADER_LENGTH, frameLength - FrameDescriptor.HEADER_LENGTH);
        logAppender.commit(framePosition, sessionStreamWord);
    }

    /** @return whether its queue pair went to ERROR (the peer is gone, as its provider saw it). */
    boolean queuePairFailed()
    {
        return null != queuePair && queuePair.state() == QueuePairState.ERROR;
    }

    void disconnect(final String reason)
    {
        connected = false;
        lastError = reason;
        holdingBackSinceNs = NOT_HOLDING_BACK;
        blockingSinceNs = NOT_HOLDING_BACK;
    }

    /**
     * Closes its queue pair now rather than at the next attempt (a disconnected destination's):
     * its subscriber's side of the connection fails at once, so its image closes, and stops storing
     * credit into this destination's region, well before the reconnection.
     */
    void closeQueuePair()
    {
        if (null != queuePair)
        {
            CloseHelper.quietClose(queuePair);
            queuePair = null;
        }
        logRing = null;
        logAppender = null;
        connected = false;
    }

    @Override
    public void close()
    {
        final Attempt pending = attempt;
        attempt = null;
        if (null != pending)
        {
            pending.queuePair.abandon(); // a handshake that has not reached RTR fails there
            CloseHelper.quietClose(pending.queuePair.real());
        }
        closeQueuePair();
        CloseHelper.quietCloseAll(credit, join);
    }
}
