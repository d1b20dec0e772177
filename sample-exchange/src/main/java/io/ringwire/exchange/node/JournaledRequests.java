package io.ringwire.exchange.node;

import io.ringwire.exchange.engine.JournaledEngine;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.nio.ByteBuffer;

/**
 * The engine's input: what the {@link Journaller} took from the gateway, in order, for the engine
 * to apply. A single-producer, single-consumer ring (agrona's {@link OneToOneRingBuffer}) in this
 * process. Each message is a type, the time the journaller took the request
 * ({@link #TAKEN_NS_OFFSET}, the ledger's {@code engineInTime}), and the request:
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                  taken (ExchangeClock.nowNs)                  |  0
 *  +---------------------------------------------------------------+
 *  |                  the request, as the gateway sent it ...      |  8
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>{@link #JOURNALED}: the journal holds it, apply it. {@link #REFUSED}: the journal refused it,
 * so it is not applied, and its client is told. {@link #MALFORMED}: it failed the engine's check,
 * so it was not journaled; the engine counts it as it counts one it checks itself.
 * {@link #OTHER_LIFE}: it names another engine life than the engine's
 * ({@link JournaledEngine#namesOtherLife}), so it was not journaled, and its client is told.
 *
 * <p>Threading: the journaller's thread writes, the engine's reads. Allocation-free.
 */
public final class JournaledRequests
{
    /** A request the journal holds, to apply. */
    public static final int JOURNALED = 1;
    /** A request the journal refused, to reject. */
    public static final int REFUSED = 2;
    /** A request that failed the engine's check, to count. */
    public static final int MALFORMED = 3;
    /** A request that names another engine life, not journaled, to reject. */
    public static final int OTHER_LIFE = 4;
    /** Where the time the journaller took the request lies. */
    public static final int TAKEN_NS_OFFSET = 0;
    /** Where the request starts. */
    public static final int REQUEST_OFFSET = 8;
    /**
     * The most ring space one request can take: agrona's record header (8 bytes), the time taken
     * and the request, aligned to 8, and the record that pads the ring's end when a record wraps.
     */
    private static final int SLOT = 2 * (RecordDescriptor.HEADER_LENGTH + REQUEST_OFFSET + JournaledEngine.MAX_REQUEST_LENGTH + 8);

    private final OneToOneRingBuffer ring;

    /**
     * @param capacity bytes the ring holds, a power of two.
     */
    public JournaledRequests(final int capacity)
    {
        ring = new OneToOneRingBuffer(new UnsafeBuffer(
            ByteBuffer.allocateDirect(capacity + RingBufferDescriptor.TRAILER_LENGTH)));
    }

    /**
     * @param requests requests of at most {@link JournaledEngine#MAX_REQUEST_LENGTH} bytes.
     * @return whether that many surely fit now: the journaller takes no request it might not hand
     *         on (each counted at its most, as if each wrapped the ring).
     */
    public boolean hasRoomFor(final int requests)
    {
        return ring.capacity() - ring.size() >= (long)requests * SLOT;
    }

    /**
     * Hands a request on; the caller checked {@link #hasRoomFor} first.
     *
     * @param type    {@link #JOURNALED}, {@link #REFUSED} or {@link #MALFORMED}.
     * @param takenNs when the journaller took it.
     * @return false when it did not fit (a caller that did not check).
     */
    public boolean offer(final int type, final long takenNs, final DirectBuffer buffer, final int offset, final int length)
    {
        final int index = ring.tryClaim(type, REQUEST_OFFSET + length);
        if (index < 0)
        {
            return false;
        }
        final var target = ring.buffer();
        target.putLong(index + TAKEN_NS_OFFSET, takenNs);
        target.putBytes(index + REQUEST_OFFSET, buffer, offset, length);
        ring.commit(index);
        return true;
    }

    /** @return whether no message waits (any thread; late from the writer's side). */
    public boolean isEmpty()
    {
        return ring.size() == 0;
    }

    /**
     * @param handler takes each message (see the layout above).
     * @param limit   most messages.
     * @return messages read.
     */
    public int read(final MessageHandler handler, final int limit)
    {
        return ring.read(handler, limit);
    }
}
