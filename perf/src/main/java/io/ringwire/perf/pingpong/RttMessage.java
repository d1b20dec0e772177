package io.ringwire.perf.pingpong;

import org.agrona.MutableDirectBuffer;

/**
 * Layout of one ping of the round-trip benchmark, the same on every transport. The ponger echoes
 * the bytes unchanged, so the pinger finds its own sequence and timestamp in the echo and checks
 * them before recording the round trip.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                  sequence (64 bits, native order)             |  0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |        send timestamp (pinger's System.nanoTime, 64 bits)     |  8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                  zero padding up to --size                    | 16
 * </pre>
 *
 * On the RDMA transports the immediate of each WRITE WITH IMMEDIATE carries
 * {@link #immediateOf(long) the low 31 bits of the sequence}, or {@link #STOP_IMMEDIATE} to end the run.
 */
public final class RttMessage
{
    /** Offset of the sequence number. */
    public static final int SEQUENCE_OFFSET = 0;
    /** Offset of the pinger's send timestamp. */
    public static final int TIMESTAMP_OFFSET = 8;
    /** Smallest message: sequence and timestamp. */
    public static final int MIN_LENGTH = 16;
    /** Largest message the benchmark accepts. */
    public static final int MAX_LENGTH = 1 << 20;
    /** Immediate that tells the ponger to echo once more and stop; no sequence maps to it. */
    public static final int STOP_IMMEDIATE = -1;
    /**
     * Sequence of the last datagram of a {@code nio-udp} run, which the ponger echoes before it
     * stops (a datagram socket has no end of stream); pings count up from 0.
     */
    public static final long STOP_SEQUENCE = -1;

    private static final long IMMEDIATE_MASK = 0x7FFF_FFFFL;

    private RttMessage()
    {
    }

    /**
     * Writes a ping's sequence and, read just before it goes, its send timestamp.
     *
     * @param buffer   holding the ping.
     * @param offset   where the ping starts.
     * @param sequence the ping's sequence.
     * @return the send timestamp written.
     */
    public static long stamp(final MutableDirectBuffer buffer, final int offset, final long sequence)
    {
        buffer.putLong(offset + SEQUENCE_OFFSET, sequence);
        final long sentNs = System.nanoTime();
        buffer.putLong(offset + TIMESTAMP_OFFSET, sentNs);
        return sentNs;
    }

    /**
     * @param sequence of a ping.
     * @return the immediate value that carries it (never {@link #STOP_IMMEDIATE}).
     */
    public static int immediateOf(final long sequence)
    {
        return (int)(sequence & IMMEDIATE_MASK);
    }
}
