package io.ringwire.rdma.faults;

import io.ringwire.rdma.Device;
import io.ringwire.rdma.DeviceCounters;
import org.agrona.concurrent.AtomicBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/**
 * What the sender ({@link StreamSender}) and the receiver ({@link StreamReceiver}) of the fault test
 * agree on without talking: the seeded message sizes and payloads, the message and credit layouts,
 * and where each message lands in the receiver's ring.
 *
 * <pre>
 *   message, at its ring offset (the sender's staging region uses the same offsets):
 *   0        8          12        16
 *   | seq(8) | length(4) | crc(4) | payload (length - 16 bytes) |
 *   seq: 0, 1, 2 ...; length: of the whole message; crc: CRC32 of the payload. All little-endian.
 *
 *   credit, RDMA-written by the receiver into the sender's credit region (INLINE, so a later
 *   retransmission cannot pick up a newer value half-written):
 *   0             8
 *   | consumed(8) | consumed ^ CREDIT_CHECK(8) |
 * </pre>
 *
 * Placement: messages are laid out back to back at increasing positions; a message that would
 * cross the end of the ring starts at the next multiple of the ring length instead. The ring offset
 * is the position modulo the ring length. The sender frees ring space only when the receiver's
 * credit says the messages before it were consumed.
 */
final class StreamPlan
{
    static final int SEQUENCE_OFFSET = 0;
    static final int LENGTH_OFFSET = 8;
    static final int CRC_OFFSET = 12;
    static final int HEADER_LENGTH = 16;

    static final int MIN_MESSAGE_LENGTH = 32;
    static final int MAX_MESSAGE_LENGTH = 64 * 1024;

    /** Receiver ring and sender staging: room for many in-flight messages of the largest size. */
    static final int RING_LENGTH = 16 * 1024 * 1024;
    /** Receives the receiver keeps posted; the sender never has more messages unconsumed. */
    static final int MAX_IN_FLIGHT = 512;

    static final int CREDIT_CONSUMED_OFFSET = 0;
    static final int CREDIT_CHECK_OFFSET = 8;
    static final int CREDIT_LENGTH = 16;
    static final long CREDIT_CHECK = 0x5257_4352_4544_4954L;

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private StreamPlan()
    {
    }

    /**
     * Message lengths, header included, mixed as a trading stream is: 80% small (32 B to 512 B,
     * orders and ticks), 18% medium (to 8 KiB, snapshots), 2% large (to 64 KiB, 16 RoCE packets at a
     * 4096 MTU), every 1000th exactly 64 KiB; log-uniform within each class. Mean about 1.2 KiB, so
     * 100k messages under every fault fit a CI budget while every size class and the multi-packet
     * paths are exercised thousands of times.
     */
    static int[] messageLengths(final long seed, final int count)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final int[] lengths = new int[count];
        for (int i = 0; i < count; i++)
        {
            if (i % 1000 == 999)
            {
                lengths[i] = MAX_MESSAGE_LENGTH;
                continue;
            }
            final double kind = random.nextDouble();
            final int low = kind < 0.80 ? MIN_MESSAGE_LENGTH : kind < 0.98 ? 512 : 8192;
            final int high = kind < 0.80 ? 512 : kind < 0.98 ? 8192 : MAX_MESSAGE_LENGTH;
            final double logLow = Math.log(low);
            final int length = (int)Math.round(Math.exp(logLow + random.nextDouble() * (Math.log(high) - logLow)));
            lengths[i] = Math.clamp(length, MIN_MESSAGE_LENGTH, MAX_MESSAGE_LENGTH);
        }
        return lengths;
    }

    /**
     * Fills {@code payload[0, length)} with the bytes message {@code sequence} carries: a function of
     * the seed and the sequence alone, so the receiver can regenerate and compare them.
     */
    static void fillPayload(final long seed, final long sequence, final byte[] payload, final int length)
    {
        long state = seed * 0x9E37_79B9_7F4A_7C15L + sequence;
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES)
        {
            state += 0x9E37_79B9_7F4A_7C15L;
            LONGS.set(payload, i, mix(state));
        }
        if (i < length)
        {
            long last = mix(state + 0x9E37_79B9_7F4A_7C15L);
            for (; i < length; i++, last >>>= 8)
            {
                payload[i] = (byte)last;
            }
        }
    }

    private static long mix(final long z0)
    {
        long z = (z0 ^ (z0 >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    static int crc32(final CRC32 crc, final byte[] bytes, final int length)
    {
        crc.reset();
        crc.update(bytes, 0, length);
        return (int)crc.getValue();
    }

    /**
     * @return the position at which a message of {@code length} bytes goes when the previous one
     *         ended at {@code endOfPrevious}: there, or at the next lap of the ring if it would wrap.
     */
    static long placement(final long endOfPrevious, final int length)
    {
        final long offset = endOfPrevious % RING_LENGTH;
        return offset + length > RING_LENGTH ? endOfPrevious - offset + RING_LENGTH : endOfPrevious;
    }

    static int ringOffset(final long position)
    {
        return (int)(position % RING_LENGTH);
    }

    /**
     * @return the consumed count in a credit record, or -1 when the two halves disagree (a write
     *         still landing).
     */
    static long readCredit(final AtomicBuffer credit)
    {
        final long consumed = credit.getLongVolatile(CREDIT_CONSUMED_OFFSET);
        final long check = credit.getLongVolatile(CREDIT_CHECK_OFFSET);
        return (consumed ^ CREDIT_CHECK) == check ? consumed : -1;
    }

    /**
     * The counters the fault test asserts on, as one parseable line: {@code COUNTERS side=... name=value ...}.
     */
    static String countersLine(final String side, final Device device)
    {
        final DeviceCounters counters = device.counters();
        final StringBuilder line = new StringBuilder("COUNTERS side=").append(side)
            .append(" provider=").append(device.providerName());
        for (int i = 0; i < DeviceCounters.COUNT; i++)
        {
            line.append(' ').append(DeviceCounters.name(i).replace(' ', '_')).append('=').append(counters.get(i));
        }
        return line.toString();
    }
}
