package io.ringwire.exchange.engine;

import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.nio.ByteBuffer;

/**
 * The engine's output on its way to the {@link DigestAgent}: a single-producer, single-consumer
 * ring (agrona's {@link OneToOneRingBuffer}) that takes a copy of every message the engine sends,
 * in order, and marks the snapshot points and the DIGEST commands between them, so that the agent
 * keeps the digest the engine would have kept itself.
 *
 * <p>The digest may not miss a byte, so a full ring holds the engine until the agent has read:
 * {@link #update} spins (counted in {@link #fullWaits()}). A ring several milliseconds of output
 * deep keeps that to an agent that stopped. An agent that failed {@link #abandon abandons} the
 * ring: its digest is broken already, so from then on a full ring drops what the engine writes
 * (counted in {@link #dropped()}) rather than hold the engine, and its shutdown, for ever.
 *
 * <p>Threading: the engine's thread writes, the agent's reads. Allocation-free.
 */
public final class DigestRing implements DigestFeed
{
    /** A message the engine sent. */
    static final int UPDATE = 1;
    /** A snapshot point: a journal sequence (a long). */
    static final int LINK = 2;
    /** A DIGEST command: no payload. */
    static final int VALUE = 3;

    private final OneToOneRingBuffer ring;
    private final UnsafeBuffer scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(Long.BYTES));
    private long fullWaits;
    private long dropped;
    private volatile boolean abandoned;

    /**
     * @param capacity bytes of messages the ring holds, a power of two.
     */
    public DigestRing(final int capacity)
    {
        if (!BitUtil.isPowerOfTwo(capacity))
        {
            throw new IllegalArgumentException("the digest ring's capacity must be a power of two: " + capacity);
        }
        ring = new OneToOneRingBuffer(new UnsafeBuffer(
            ByteBuffer.allocateDirect(capacity + RingBufferDescriptor.TRAILER_LENGTH)));
    }

    @Override
    public void update(final DirectBuffer buffer, final int offset, final int length)
    {
        write(UPDATE, buffer, offset, length);
    }

    @Override
    public void link(final long journalSequence)
    {
        scratch.putLong(0, journalSequence);
        write(LINK, scratch, 0, Long.BYTES);
    }

    @Override
    public void valueRequested()
    {
        write(VALUE, scratch, 0, 0);
    }

    private void write(final int type, final DirectBuffer buffer, final int offset, final int length)
    {
        while (!ring.write(type, buffer, offset, length))
        {
            if (abandoned)
            {
                dropped++;
                return;
            }
            fullWaits++;
            Thread.onSpinWait();
        }
    }

    /** The reader is gone for good (its digest broken): a full ring no longer holds the writer. Any thread. */
    void abandon()
    {
        abandoned = true;
    }

    /** @return whether the reader abandoned the ring (any thread). */
    public boolean abandoned()
    {
        return abandoned;
    }

    /** @return writes dropped since the reader abandoned the ring (the writer's thread, or late). */
    public long dropped()
    {
        return dropped;
    }

    /** @return the ring, for the agent. */
    OneToOneRingBuffer ring()
    {
        return ring;
    }

    /** @return times the engine found the ring full and waited for the agent (the engine's thread writes it). */
    public long fullWaits()
    {
        return fullWaits;
    }
}
