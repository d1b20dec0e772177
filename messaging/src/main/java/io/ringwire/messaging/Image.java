package io.ringwire.messaging;

import io.ringwire.messaging.protocol.CreditLayout;
import io.ringwire.messaging.protocol.FrameChecksum;
import io.ringwire.messaging.protocol.FrameDescriptor;
import io.ringwire.messaging.protocol.FrameReader;
import io.ringwire.messaging.protocol.JoinLayout;
import io.ringwire.messaging.protocol.LogReader;
import io.ringwire.messaging.status.SubscriptionCounters;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.SendFlags;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AtomicBuffer;

import static io.ringwire.messaging.protocol.FrameDescriptor.*;

/**
 * One publication's stream as a subscription sees it: the ring it writes into, the queue pair it
 * writes through, and where to return credit. Frames are read in place: over RDMA in the order
 * their receive completions arrive (the order they were written on a reliable connection); in a
 * memory log ({@link #pollLog}) by watching the next frame's position word, which the publication
 * writes last, with release order, so seeing it means seeing the whole frame.
 *
 * <p>Threading: the subscription's polling thread.
 */
final class Image implements AutoCloseable
{
    static final int VALID = 0;
    static final int PROTOCOL_ERROR = -1;
    /** The length and version bytes of a length word. */
    private static final long LENGTH_AND_VERSION_MASK = 0xFF_FFFF_FFFFL;
    /** A length word's version byte, in place, when it is the current version. */
    private static final long CURRENT_VERSION_BITS = (long)CURRENT_VERSION << 32;
    /**
     * Consumed receives are posted again in small groups, a sixteenth of the batch at a time: the
     * same work as one large group, but no single frame pays for reposting half the batch.
     */
    private static final int REPOSTS_PER_BATCH = 16;
    /** {@link #pollLog}: the frame at the position breaks the stream's rules; the image must close. */
    static final int LOG_PROTOCOL_ERROR = -1;

    final int sessionId;
    /** The identity the publication proved at its handshake. */
    final String identity;
    final int streamId;
    final QueuePair queuePair;
    final int queuePairNumber;
    private final MemoryRegion ring;
    private final AtomicBuffer ringBuffer;
    /** Checks each frame against what the stream must hold next: this image's session and position. */
    private final FrameReader reader;
    /** Verifies checksummed frames; non-null when the subscription requires every data frame to carry one. */
    private final FrameChecksum checksum;
    /** Verifies checksummed frames this image did not ask for. */
    private FrameChecksum unaskedChecksum;
    private final int capacity;
    private final int mask;
    /** The session and stream every frame of this image carries, as its header holds them. */
    private final long sessionStreamWord;
    private final MemoryRegion creditSource;
    private final AtomicBuffer creditBuffer;
    private final MemoryRegion join;
    private final long remoteCreditAddress;
    private final int remoteCreditKey;
    private final int creditInterval;
    private final int receiveBatch;
    private final int repostThreshold;
    /** Receives reposted since the last credit write that make one worth sending on their own. */
    private final int receiveCreditInterval;
    private final Header header = new Header();
    /** A memory log: frames are polled in the ring and credit is stored into the publication's region. */
    private final boolean memoryLog;
    /** Reads the ring as a memory log; null over RDMA. */
    private final LogReader logReader;
    /** The publication's credit region, for this process's stores (memory log), once mapped. */
    private AtomicBuffer creditView;
    /** The publication's credit region could not be mapped once the connection was up ({@link #mapCredit}). */
    private boolean creditUnmappable;

    long position;
    private long creditSentPosition;
    private long livenessCounter;
    private int receivesToRepost;
    /** Receives posted on this connection so far (the initial batch included), as credited. */
    private long receivesPosted;
    private long receivesCredited;
    private boolean creditOwed;
    long lastFrameNs;
    /** Whether the duty cycle's last look found it silent past the liveness timeout (see Subscription). */
    boolean silentAtLastLook;
    long lastCreditNs;
    /** The publication's beat (a memory log) the duty cycle last saw: a change is a sign of life. */
    long beatAtDuty;
    /** Frames seen; the duty cycle turns a change into {@link #lastFrameNs} without a clock read per frame. */
    long framesReceived;
    long framesReceivedAtDuty;
    private boolean closed;
    /** True once the subscription polls it for liveness and the application knows of it. Polling thread. */
    boolean available;
    /**
     * A memory log whose connection ended (its publication closed, cut it off, or its process is
     * gone): every frame committed in the ring is whole and is still read; the image closes once
     * a poll finds nothing more.
     */
    boolean draining;
    /**
     * Set when the application evicts it or it breaks the protocol: a memory log's close then leaves
     * no closed mark, so its publication does not write what it left unread again (see
     * {@link #markClosed}).
     */
    boolean unreadAbandoned;
    /**
     * True while a read has a handler on the stack ({@link #pollLog}, {@link #onFrame}): a close
     * from inside the handler is finished by that read once the handler returns, with the ring still
     * mapped until then and the position (and a memory log's closed mark) past the frame handled.
     */
    private boolean polling;
    /** Closed from inside its handler: the read that called the handler releases it once it returns. */
    private boolean releaseDeferred;
    /**
     * A memory log's message in progress: whether the last data frame read was not its message's
     * last fragment, and where that message's first fragment starts. Its close marks that start,
     * not its position, so that the message is written again whole into the next connection: the
     * fragments read so far were never delivered whole (a {@link FragmentAssembler} drops a
     * message's later fragments without its first).
     */
    private boolean inMessage;
    private long messageStart;
    /** False until the JOIN message set the start position: frames before it break the protocol. */
    private boolean joined;
    /** The connection's number, from its JOIN: named in the closed mark. */
    private int connection;

    Image(final int sessionId, final String identity, final int streamId, final QueuePair queuePair,
        final MemoryRegion ring,
        final MemoryRegion creditSource, final MemoryRegion join, final long remoteCreditAddress,
        final int remoteCreditKey,
        final long initialPosition, final int creditFraction, final int receiveBatch, final boolean checksums,
        final boolean memoryLog, final long nowNs)
    {
        this.memoryLog = memoryLog;
        this.checksum = checksums ? new FrameChecksum(ring.buffer()) : null;
        this.sessionId = sessionId;
        this.identity = identity;
        this.streamId = streamId;
        this.queuePair = queuePair;
        this.queuePairNumber = queuePair.queuePairNumber();
        this.ring = ring;
        this.ringBuffer = ring.buffer();
        this.creditSource = creditSource;
        this.creditBuffer = creditSource.buffer();
        this.join = join;
        this.remoteCreditAddress = remoteCreditAddress;
        this.remoteCreditKey = remoteCreditKey;
        this.sessionStreamWord = FrameDescriptor.sessionStreamWord(sessionId, streamId);
        this.reader = new FrameReader(ringBuffer, sessionStreamWord, checksums);
        this.logReader = memoryLog ? new LogReader(ringBuffer, sessionStreamWord) : null;
        this.capacity = ring.length();
        this.mask = capacity - 1;
        this.creditInterval = ring.length() / creditFraction;
        this.receiveBatch = receiveBatch;
        this.repostThreshold = Math.max(1, receiveBatch / REPOSTS_PER_BATCH);
        this.receiveCreditInterval = Math.max(1, receiveBatch / 4);
        this.header.stream(sessionStreamWord);
        this.position = initialPosition;
        this.creditSentPosition = initialPosition;
        this.lastFrameNs = nowNs;
        this.lastCreditNs = nowNs;
    }

    /** @return the ring the publication writes into (tests read it). */
    MemoryRegion ring()
    {
        return ring;
    }

    /**
     * Handles the frame a receive completion announced.
     *
     * <p>The frame a healthy stream holds next passes one folded test of {@link FrameReader}'s rules,
     * a comparison per header word: length and version, type, session and stream, position. Only a
     * frame that fails it goes to the reader, to learn which rule it broke (a PAD frame at the very
     * end of the ring, too short for a whole header, is the one valid frame it hands over). The test
     * stays inside this method on purpose: with the frame checks a call away, the JIT inlines this
     * method into the provider's completion path, and that compiled unit, the application's handler
     * included, outgrows the inlining budget and leaves small helpers (agrona's bounds checks) as
     * calls on every frame.
     *
     * @param frameLength the completion's immediate.
     * @param handler     gets data frames.
     * @param counters    the subscription's counters.
     * @param tallies     the subscription's per-frame tallies.
     * @return VALID or PROTOCOL_ERROR (a frame before the JOIN, or one {@link FrameReader} refuses).
     */
    int onFrame(final int frameLength, final FragmentHandler handler, final SubscriptionCounters counters,
        final SubscriptionTallies tallies, final long nowNs)
    {
        if (!joined)
        {
            return PROTOCOL_ERROR;
        }
        final int offset = (int)position & mask;
        final long lengthWord;
        final int type;
        final int broken;
        if (frameLength >= HEADER_LENGTH && frameLength <= capacity - offset &&
            ((lengthWord = ringBuffer.getLong(offset + FRAME_LENGTH_OFFSET, ORDER)) & LENGTH_AND_VERSION_MASK) ==
                (frameLength | CURRENT_VERSION_BITS) &&
            (((type = (int)(lengthWord >>> 48)) - TYPE_DATA) & 0xFFFF) <= TYPE_HEARTBEAT - TYPE_DATA &&
            ringBuffer.getLong(offset + SESSION_ID_OFFSET, ORDER) == sessionStreamWord &&
            ringBuffer.getLong(offset + POSITION_OFFSET, ORDER) == position)
        {
            final byte flags = FrameDescriptor.flags(lengthWord);
            int payloadLength = frameLength - HEADER_LENGTH;
            if ((flags & CHECKSUM_FLAG) != 0)
            {
                if (!checksumHolds(offset, frameLength, counters))
                {
                    return PROTOCOL_ERROR;
                }
                payloadLength -= CHECKSUM_LENGTH;
            }
            else if (null != checksum && frameLength >= HEADER_LENGTH + CHECKSUM_LENGTH)
            {
                counters.checksumErrors.incrementRelease(); // this subscription asked for checksums
                return PROTOCOL_ERROR;
            }
            framesReceived++;
            if (type == TYPE_DATA)
            {
                header.frame(flags, frameLength, position);
                polling = true;
                try
                {
                    handler.onFragment(ringBuffer, offset + HEADER_LENGTH, payloadLength, header);
                }
                catch (final Throwable ex)
                {
                    handlerThrew(frameLength);
                    throw ex;
                }
                finally
                {
                    polling = false;
                    if (releaseDeferred)
                    {
                        releaseAfterHandler(frameLength);
                    }
                }
                tallies.fragments++;
                tallies.messages += (flags & END_FLAG) >>> 6; // an unfragmented message or a last fragment
                tallies.bytes += payloadLength;
                if (closed)
                {
                    return VALID; // its handler closed it: nothing more is posted or credited
                }
            }
            else if (type == TYPE_HEARTBEAT)
            {
                tallies.heartbeats++;
            }
        }
        else if ((broken = reader.read(position, frameLength)) == FrameReader.PAD)
        {
            framesReceived++;
        }
        else
        {
            if (broken == FrameReader.BAD_CHECKSUM)
            {
                // A signed frame damaged in its header words (the trailer covers them), or an
                // unsigned one where this subscription wants checksums.
                counters.checksumErrors.incrementRelease();
            }
            return PROTOCOL_ERROR;
        }
        position += alignedLength(frameLength);
        if (++receivesToRepost >= repostThreshold)
        {
            repostReceives();
        }
        if (creditOwed || position - creditSentPosition >= creditInterval ||
            receivesPosted - receivesCredited >= receiveCreditInterval)
        {
            sendCredit(nowNs, counters);
        }
        return VALID;
    }

    /**
     * A keepalive ({@link FrameDescriptor#KEEPALIVE_IMMEDIATE}): a sign of life that took a receive
     * and moves no position. The receive is posted again and credited as a frame's is.
     *
     * @param nowNs    the subscription's clock reading.
     * @param counters the subscription's counters.
     * @return {@link #VALID}, or {@link #PROTOCOL_ERROR} before the JOIN.
     */
    int onKeepalive(final long nowNs, final SubscriptionCounters counters)
    {
        if (!joined)
        {
            return PROTOCOL_ERROR;
        }
        framesReceived++;
        if (++receivesToRepost >= repostThreshold)
        {
            repostReceives();
        }
        if (creditOwed || receivesPosted - receivesCredited >= receiveCreditInterval)
        {
            sendCredit(nowNs, counters);
        }
        return VALID;
    }

    /**
     * @return the beat the publication of a memory log raises while no frame can leave it (see
     *         {@link CreditLayout#PUBLICATION_BEAT_OFFSET}); 0 before its credit region is mapped.
     */
    long publicationBeat()
    {
        return null == creditView ? 0 : creditView.getLongAcquire(CreditLayout.PUBLICATION_BEAT_OFFSET);
    }

    /**
     * Reads the frames a memory log holds from the position on, up to {@code limit}, through its
     * {@link LogReader}: a frame is there once its commit is visible, and is consumed (the reader's
     * position moves past it; nothing is written into the ring) once handled. Data is handed over in
     * place, a checksum trailer (on any frame, PAD and heartbeat too) is verified as {@link #onFrame}
     * verifies one, and credit goes out once {@code creditInterval}
     * bytes were consumed since the last, not per frame.
     *
     * @param handler  gets data frames.
     * @param limit    most frames to read.
     * @param counters the subscription's counters (checksum errors).
     * @param tallies  the subscription's per-frame tallies.
     * @param nowNs    the subscription's clock reading (for credit).
     * @return frames read, or {@link #LOG_PROTOCOL_ERROR}.
     */
    int pollLog(final FragmentHandler handler, final int limit, final SubscriptionCounters counters,
        final SubscriptionTallies tallies, final long nowNs)
    {
        if (!joined || closed)
        {
            return 0; // closed: evicted by a handler of another image in this poll, its ring released
        }
        final LogReader log = logReader;
        long position = this.position;
        if ((position & (FrameDescriptor.LINE_ALIGNMENT - 1)) != 0)
        {
            return LOG_PROTOCOL_ERROR; // off the frame grid (the join checks it; nothing else moves it so)
        }
        int read = 0;
        long lengthWord;
        boolean partial = inMessage;
        long start = messageStart;
        polling = true;
        while (read < limit && (lengthWord = log.next(position)) != LogReader.NONE)
        {
            final int offset = (int)position & mask;
            final int frameLength = (int)lengthWord;
            final int type = (int)(lengthWord >>> 48);
            if (lengthWord == LogReader.BROKEN)
            {
                polling = false;
                this.position = position;
                return LOG_PROTOCOL_ERROR;
            }
            // Every kind of frame is checked, PAD frames too: a PAD's length says how far to skip,
            // so a corrupted one would pass over whole frames unseen.
            final byte flags = FrameDescriptor.flags(lengthWord);
            int payloadLength = frameLength - HEADER_LENGTH;
            if ((flags & CHECKSUM_FLAG) != 0)
            {
                if (!checksumHolds(offset, frameLength, counters))
                {
                    polling = false;
                    this.position = position;
                    return LOG_PROTOCOL_ERROR;
                }
                payloadLength -= CHECKSUM_LENGTH;
            }
            else if (null != checksum && frameLength >= HEADER_LENGTH + CHECKSUM_LENGTH)
            {
                counters.checksumErrors.incrementRelease();
                polling = false;
                this.position = position;
                return LOG_PROTOCOL_ERROR;
            }
            if (type != TYPE_PAD)
            {
                if (type == TYPE_DATA)
                {
                    header.frame(flags, frameLength, position);
                    start = (flags & BEGIN_FLAG) != 0 ? position : start;
                    partial = (flags & END_FLAG) == 0;
                    try
                    {
                        handler.onFragment(ringBuffer, offset + HEADER_LENGTH, payloadLength, header);
                    }
                    catch (final Throwable ex)
                    {
                        // As Aeron does: the frame that threw counts as delivered, and so does every
                        // frame before it in this poll, so the next poll does not repeat them.
                        this.position = log.consume(position, frameLength);
                        inMessage = partial;
                        messageStart = start;
                        polling = false;
                        if (releaseDeferred)
                        {
                            releaseAfterHandler();
                        }
                        throw ex;
                    }
                    tallies.fragments++;
                    tallies.messages += (flags & END_FLAG) >>> 6;
                    tallies.bytes += payloadLength;
                }
                else
                {
                    tallies.heartbeats++;
                }
            }
            position = log.consume(position, frameLength);
            framesReceived++;
            read++;
            if (closed)
            {
                break; // its handler closed it
            }
        }
        polling = false;
        inMessage = partial;
        messageStart = start;
        this.position = position;
        if (releaseDeferred)
        {
            releaseAfterHandler();
            return read; // nothing more is credited
        }
        if (read > 0 && (creditOwed || position - creditSentPosition >= creditInterval))
        {
            sendCredit(nowNs, counters);
        }
        return read;
    }

    /**
     * Verifies a checksummed frame's CRC32C (whether or not this image asked for checksums: a
     * publication that fans out to several subscribers signs for all once one asks).
     *
     * @return true when it holds; false, counted, when the frame is too short for it or it differs.
     */
    private boolean checksumHolds(final int offset, final int frameLength, final SubscriptionCounters counters)
    {
        final FrameChecksum verifier = null != checksum ? checksum : lazyChecksum();
        if (frameLength >= HEADER_LENGTH + CHECKSUM_LENGTH && verifier.verify(offset, frameLength))
        {
            return true;
        }
        counters.checksumErrors.incrementRelease();
        return false;
    }

    private FrameChecksum lazyChecksum()
    {
        if (null == unaskedChecksum)
        {
            unaskedChecksum = new FrameChecksum(ringBuffer); // once per image, off the usual path
        }
        return unaskedChecksum;
    }

    /** @return whether the JOIN arrived: the stream's start is known. */
    boolean isJoined()
    {
        return joined;
    }

    /**
     * The JOIN message arrived: the stream starts at the position it carries.
     *
     * @return VALID, or PROTOCOL_ERROR for a second JOIN.
     */
    int onJoin(final int length, final long nowNs, final SubscriptionCounters counters)
    {
        if (joined || length != JoinLayout.LENGTH)
        {
            return PROTOCOL_ERROR;
        }
        final long joinPosition = join.buffer().getLong(JoinLayout.POSITION_OFFSET, ORDER);
        // Every frame offset is derived from this position: one off the frame grid, negative, or past
        // where a publication stops (MAX_POSITION_EXCEEDED) would point reads past the ring, or overflow.
        if (joinPosition < 0 || joinPosition > Long.MAX_VALUE - 2L * capacity ||
            (joinPosition & ((memoryLog ? FrameDescriptor.LINE_ALIGNMENT : FrameDescriptor.ALIGNMENT) - 1)) != 0)
        {
            return PROTOCOL_ERROR;
        }
        joined = true;
        connection = join.buffer().getInt(JoinLayout.CONNECTION_OFFSET, ORDER);
        position = joinPosition;
        messageStart = joinPosition; // a stream joins between messages
        creditSentPosition = position;
        framesReceived++;
        receivesToRepost++;
        sendCredit(nowNs, counters);
        return VALID;
    }

    /**
     * Posts the first batch, before the connection completes: the publication counts on exactly
     * {@link CreditLayout#INITIAL_RECEIVES} of them.
     *
     * @throws IllegalStateException when the queue pair took fewer.
     */
    void postInitialReceives()
    {
        for (int i = 0; i < receiveBatch; i++)
        {
            final int result = queuePair.postReceive(i, join, 0, JoinLayout.REGION_LENGTH);
            if (result != PostResult.OK)
            {
                throw new IllegalStateException("posting receive " + i + " of the first " + receiveBatch + " failed: " +
                    PostResult.name(result));
            }
        }
        receivesPosted = receiveBatch;
        receivesCredited = receiveBatch;
    }

    private void repostReceives()
    {
        while (receivesToRepost > 0 && queuePair.postReceive(0, join, 0, JoinLayout.REGION_LENGTH) == PostResult.OK)
        {
            receivesToRepost--;
            receivesPosted++;
        }
    }

    /**
     * Writes the consumed position, a liveness count and the receives posted so far into the
     * publication's credit region.
     */
    void sendCredit(final long nowNs, final SubscriptionCounters counters)
    {
        if (draining)
        {
            return; // the connection is gone: its credit region may be another connection's soon
        }
        if (memoryLog)
        {
            storeCredit(nowNs, counters);
            return;
        }
        creditBuffer.putLong(CreditLayout.CONSUMED_POSITION_OFFSET, position);
        creditBuffer.putLong(CreditLayout.LIVENESS_COUNTER_OFFSET, ++livenessCounter);
        creditBuffer.putLong(CreditLayout.RECEIVES_POSTED_OFFSET, receivesPosted);
        final int result = queuePair.postWrite(position, creditSource, 0, CreditLayout.LENGTH, remoteCreditAddress,
            remoteCreditKey, SendFlags.INLINE | ((livenessCounter & 15) == 0 ? SendFlags.SIGNALED : 0));
        if (result == PostResult.OK)
        {
            creditOwed = false;
            creditSentPosition = position;
            receivesCredited = receivesPosted;
            lastCreditNs = nowNs;
            counters.creditUpdates.incrementRelease();
        }
        else
        {
            creditOwed = true; // retried with the next frame or duty cycle
        }
    }

    /**
     * Maps the publication's credit region for this process's stores, once the connection is up,
     * where this image is a memory log. A region this process may not map (a bad rkey, a range
     * outside it, or a publication that has closed already) leaves the image nothing to credit: it
     * drains what the publication committed and ends, and no credit looks the region up again
     * (each look allocates).
     *
     * @return true when mapped, or nothing to map; false when the image drains.
     */
    boolean mapCredit()
    {
        if (!memoryLog || null != creditView)
        {
            return true;
        }
        creditView = queuePair.remoteBuffer(remoteCreditAddress, remoteCreditKey, CreditLayout.MEMORY_LOG_LENGTH);
        if (null != creditView)
        {
            return true;
        }
        creditUnmappable = true;
        draining = true;
        return false;
    }

    /**
     * Stores the consumed position (the start of a message read only in part) and a liveness count
     * straight into the publication's credit region (a memory log): the count first, the position
     * last with release order. The region is mapped at the first credit, after the connection is up.
     */
    private void storeCredit(final long nowNs, final SubscriptionCounters counters)
    {
        AtomicBuffer view = creditView;
        if (null == view)
        {
            if (creditUnmappable)
            {
                creditOwed = false;
                return;
            }
            view = queuePair.remoteBuffer(remoteCreditAddress, remoteCreditKey, CreditLayout.MEMORY_LOG_LENGTH);
            if (null == view)
            {
                creditOwed = true; // not connected yet: the next frame or duty cycle tries again
                return;
            }
            creditView = view;
        }
        if (!joined)
        {
            // Liveness alone before the JOIN: until it is read the image's position is the
            // handshake's, which lies past where the stream starts when the publication writes
            // again what a closed image left unread (it joins at the first of those frames), and a
            // credit of it would let the publication store over them unread. Over RDMA a JOIN is
            // never behind the handshake's position, so an early credit there holds nothing back.
            view.putLongRelease(CreditLayout.LIVENESS_COUNTER_OFFSET, ++livenessCounter);
            creditOwed = false;
            lastCreditNs = nowNs;
            return;
        }
        view.putLong(CreditLayout.LIVENESS_COUNTER_OFFSET, ++livenessCounter);
        // A message read only in part is not credited past its start: the publication then never
        // stores over that start, so a close mid-message can have it written again whole. The
        // next credit is due from what was credited, so that the rest of the message, once read,
        // goes out with the next poll rather than the heartbeat's.
        final long credited = inMessage ? messageStart : position;
        view.putLongRelease(CreditLayout.CONSUMED_POSITION_OFFSET, credited);
        creditOwed = false;
        creditSentPosition = credited;
        lastCreditNs = nowNs;
        counters.creditUpdates.incrementRelease();
    }

    /** Sends the credit a refused post left owed. */
    void sendOwedCredit(final long nowNs, final SubscriptionCounters counters)
    {
        if (creditOwed)
        {
            sendCredit(nowNs, counters);
        }
    }

    /** @return whether it was closed (its memory released, or to be released once its read returns). */
    boolean isClosed()
    {
        return closed;
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true; // its memory is unmapped on close: a second close must not touch it
            if (polling)
            {
                releaseDeferred = true; // the read that called the handler still holds the ring
                return;
            }
            release();
        }
    }

    private void release()
    {
        if (memoryLog && joined && !unreadAbandoned && !draining)
        {
            markClosed();
        }
        CloseHelper.quietCloseAll(queuePair, ring, creditSource, join);
    }

    /**
     * A handler threw on {@link #onFrame}'s frame: as on a memory log (and in Aeron), the frame
     * counts as delivered and its receive is reposted as any other's, so the next completion reads
     * the frame after it rather than this one again, and no frame lags one completion behind.
     */
    private void handlerThrew(final int frameLength)
    {
        if (!releaseDeferred) // else its handler closed the image too: the release moves past it
        {
            position += alignedLength(frameLength);
            receivesToRepost++;
        }
    }

    /**
     * Ends a read whose handler closed this image: the frame it handled counts as read (its position
     * is where the read stopped), then what close left is released.
     */
    private void releaseAfterHandler(final int frameLength)
    {
        position += alignedLength(frameLength); // delivered: its handler closed the image
        releaseAfterHandler();
    }

    private void releaseAfterHandler()
    {
        polling = false;
        releaseDeferred = false;
        release();
    }

    /**
     * Tells the publication, in its credit region, where this memory log's image stopped reading,
     * or where the message it had read only part of starts (before its queue pair closes, which is
     * how the publication learns of the close): the
     * publication may have stored frames past it that no one reads now, and writes them again into
     * its next connection to this subscriber (see {@link PublicationDestination}).
     */
    private void markClosed()
    {
        final AtomicBuffer view = null != creditView ? creditView :
            queuePair.remoteBuffer(remoteCreditAddress, remoteCreditKey, CreditLayout.MEMORY_LOG_LENGTH);
        if (null != view)
        {
            view.putLong(CreditLayout.CLOSED_POSITION_OFFSET, position);
            view.putLong(CreditLayout.CLOSED_MESSAGE_START_OFFSET, inMessage ? messageStart : position);
            view.putLongRelease(CreditLayout.CLOSED_MARK_OFFSET, CreditLayout.closedMark(sessionId, connection));
        }
    }
}
