package io.ringwire.rdma.roce;

import org.agrona.MutableDirectBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32;

/**
 * The RoCEv2 invariant CRC (IBA annex A17.3.3) for IPv4: CRC-32 (the zip/Ethernet polynomial) over
 * 8 bytes of 0xFF, the IPv4 header with TOS, TTL and header checksum set to all ones, the UDP
 * header with its checksum set to 0xFFFF, the BTH with byte 4 (FECN/BECN/reserved) set to 0xFF,
 * then the rest of the headers, payload and pad. Stored little-endian after the pad.
 *
 * <p>The ICRC covers the IPv4 Identification field, which a UDP socket never sees on receive.
 * Senders number their datagrams (the kernel's rxe does; RingWire's connected sockets do) or send ID
 * 0 (RingWire's unconnected sockets). Because the CRC is affine in the ID bits, a receiver can check
 * a packet against the ID it expects ({@link #identificationDifference}), and otherwise
 * {@link #solveIpIdentification} finds the one 16-bit ID (if any) that makes the ICRC match. A
 * receiver that accepts any solvable ID rejects all but 2^-16 of corrupted packets; the ID it finds
 * equals the real one on every captured rxe packet (tested).
 *
 * <p>Threading: one instance per thread (it holds a {@link CRC32} and scratch arrays). No allocation
 * after construction.
 */
final class Icrc
{
    /** Bytes of ICRC after the pad. */
    static final int LENGTH = 4;

    private static final int IPV4_HEADER_LENGTH = 20;
    private static final int UDP_HEADER_LENGTH = 8;
    private static final int PREFIX_LENGTH = 8 + IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH;
    /** Offset of the IPv4 Identification field in the prefix (after the 8 bytes of 0xFF). */
    private static final int IP_ID_OFFSET = 8 + 4;
    private static final int BTH_MASKED_BYTE = 4;
    private static final int IP_FLAGS_DONT_FRAGMENT = 0x4000;

    private static final int[] TABLE = new int[256];
    /** Largest UDP payload the ID solver covers: 4096-byte MTU plus every header and pad. */
    private static final int MAX_SOLVABLE_PAYLOAD = 4096 + 256;
    /**
     * For each count n of bytes that follow the IP ID field in the ICRC input, the 16 CRC register
     * differences one set bit of the ID makes (bit 15 = most significant bit of the ID).
     */
    private static final int[][] ID_BIT_EFFECT = new int[PREFIX_LENGTH - IP_ID_OFFSET - 2 + MAX_SOLVABLE_PAYLOAD + 1][];

    static
    {
        for (int i = 0; i < 256; i++)
        {
            int c = i;
            for (int k = 0; k < 8; k++)
            {
                c = (c & 1) != 0 ? (c >>> 1) ^ 0xEDB88320 : c >>> 1;
            }
            TABLE[i] = c;
        }
        final int[] effect = new int[16];
        for (int bit = 0; bit < 16; bit++)
        {
            final int id = 1 << bit;
            effect[bit] = step(step(0, id >>> 8), id & 0xFF);
        }
        ID_BIT_EFFECT[0] = effect.clone();
        for (int n = 1; n < ID_BIT_EFFECT.length; n++)
        {
            final int[] previous = ID_BIT_EFFECT[n - 1];
            final int[] next = new int[16];
            for (int bit = 0; bit < 16; bit++)
            {
                next[bit] = step(previous[bit], 0);
            }
            ID_BIT_EFFECT[n] = next;
        }
    }

    /**
     * Bytes a packet buffer keeps free in front of the BTH for {@link #computeInPlace}: the ICRC's
     * prefix (8 bytes of 0xFF, then the masked IPv4 and UDP headers) is laid out there once per flow,
     * so that the CRC runs once over prefix and packet where they lie, with nothing copied.
     */
    static final int HEADROOM = PREFIX_LENGTH;
    private static final int IP_TOTAL_LENGTH_OFFSET = 8 + 2;
    private static final int UDP_OFFSET = 8 + IPV4_HEADER_LENGTH;
    private static final int UDP_LENGTH_OFFSET = UDP_OFFSET + 4;

    private final CRC32 crc = new CRC32();
    private final int[] eliminationRows = new int[16];
    private final int[] eliminationIds = new int[16];

    private static int step(final int register, final int value)
    {
        return (register >>> 8) ^ TABLE[(register ^ value) & 0xFF];
    }

    /**
     * Lays out the fields of the ICRC's prefix that one flow keeps (addresses, ports, the masked
     * fields) in {@code frame[0, HEADROOM)}, in front of where the BTH goes; the lengths and the ID
     * are set per packet by {@link #computeInPlace}.
     *
     * @param frame              a buffer whose BTH starts at {@link #HEADROOM}.
     * @param sourceAddress      IPv4 source, as an int (network order read big-endian).
     * @param destinationAddress IPv4 destination.
     * @param sourcePort         UDP source port.
     * @param destinationPort    UDP destination port.
     */
    static void writePrefix(
        final MutableDirectBuffer frame,
        final int sourceAddress,
        final int destinationAddress,
        final int sourcePort,
        final int destinationPort)
    {
        frame.putLong(0, -1L);
        final int ip = 8;
        frame.putByte(ip, (byte)0x45);
        frame.putByte(ip + 1, (byte)0xFF); // TOS masked
        frame.putShort(ip + 6, (short)IP_FLAGS_DONT_FRAGMENT, ByteOrder.BIG_ENDIAN);
        frame.putByte(ip + 8, (byte)0xFF); // TTL masked
        frame.putByte(ip + 9, (byte)17);
        frame.putShort(ip + 10, (short)0xFFFF); // header checksum masked
        frame.putInt(ip + 16, destinationAddress, ByteOrder.BIG_ENDIAN);
        frame.putShort(UDP_OFFSET + 2, (short)destinationPort, ByteOrder.BIG_ENDIAN);
        frame.putShort(UDP_OFFSET + 6, (short)0xFFFF); // UDP checksum masked
        setSource(frame, sourceAddress, sourcePort);
    }

    /**
     * Masks the fields the ICRC leaves out (TOS, TTL and header checksum of the IPv4 header, the UDP
     * checksum) in real headers received in the prefix's place, in front of the BTH, as a raw
     * socket delivers them; the 8 bytes of ones before them stay as {@link #writePrefix} laid them.
     *
     * @param frame a buffer whose BTH starts at {@link #HEADROOM}, real IPv4 and UDP headers before it.
     */
    static void maskVariantFields(final MutableDirectBuffer frame)
    {
        final int ip = 8;
        frame.putByte(ip + 1, (byte)0xFF); // TOS
        frame.putByte(ip + 8, (byte)0xFF); // TTL
        frame.putShort(ip + 10, (short)0xFFFF); // header checksum
        frame.putShort(UDP_OFFSET + 6, (short)0xFFFF); // UDP checksum
    }

    /**
     * Sets the source of a prefix laid out by {@link #writePrefix}: a receiver's packets come from
     * many senders.
     *
     * @param frame         the buffer.
     * @param sourceAddress IPv4 source, as an int (network order read big-endian).
     * @param sourcePort    UDP source port.
     */
    static void setSource(final MutableDirectBuffer frame, final int sourceAddress, final int sourcePort)
    {
        frame.putInt(8 + 12, sourceAddress, ByteOrder.BIG_ENDIAN);
        frame.putShort(UDP_OFFSET, (short)sourcePort, ByteOrder.BIG_ENDIAN);
    }

    /**
     * Computes the ICRC of the packet at {@code frame[HEADROOM, ..)} whose prefix
     * {@link #writePrefix} laid out in front of it: sets the lengths and the ID there, runs the CRC
     * once over prefix and packet with BTH byte 4 masked (restored after), and leaves
     * {@code frame}'s position and limit changed.
     *
     * @param frame            the buffer, direct.
     * @param frameView        a view of all of {@code frame}.
     * @param ipIdentification the IPv4 Identification field.
     * @param udpPayloadLength bytes from the BTH through the ICRC; at most the buffer's capacity
     *                         less {@link #HEADROOM}.
     * @return the ICRC as the int whose little-endian bytes are stored on the wire.
     */
    int computeInPlace(
        final ByteBuffer frame,
        final MutableDirectBuffer frameView,
        final int ipIdentification,
        final int udpPayloadLength)
    {
        setLengthsAndIdentification(frameView, ipIdentification, udpPayloadLength);
        final int masked = HEADROOM + BTH_MASKED_BYTE;
        final byte kept = frameView.getByte(masked);
        frameView.putByte(masked, (byte)0xFF);
        crc.reset();
        frame.limit(HEADROOM + udpPayloadLength - LENGTH).position(0);
        crc.update(frame);
        frameView.putByte(masked, kept);
        return (int)crc.getValue();
    }

    private static void setLengthsAndIdentification(
        final MutableDirectBuffer frame, final int ipIdentification, final int udpPayloadLength)
    {
        frame.putShort(IP_TOTAL_LENGTH_OFFSET, (short)(IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH + udpPayloadLength),
            ByteOrder.BIG_ENDIAN);
        frame.putShort(IP_ID_OFFSET, (short)ipIdentification, ByteOrder.BIG_ENDIAN);
        frame.putShort(UDP_LENGTH_OFFSET, (short)(UDP_HEADER_LENGTH + udpPayloadLength), ByteOrder.BIG_ENDIAN);
    }

    /**
     * What a given IPv4 Identification changes in the ICRC against ID 0: {@code computeInPlace(.., id, ..)}
     * equals {@code computeInPlace(.., 0, ..) ^ identificationDifference(id, length)}. Lets a receiver
     * check a packet against the ID it expects from that sender without a second CRC pass.
     *
     * @param ipIdentification the ID, 0..65535.
     * @param udpPayloadLength bytes from the BTH through the ICRC.
     * @return the difference; 0 for ID 0 or a length the solver does not cover.
     */
    static int identificationDifference(final int ipIdentification, final int udpPayloadLength)
    {
        final int bytesAfterId = PREFIX_LENGTH - IP_ID_OFFSET - 2 + udpPayloadLength - LENGTH;
        if (bytesAfterId < 0 || bytesAfterId >= ID_BIT_EFFECT.length)
        {
            return 0;
        }
        final int[] effect = ID_BIT_EFFECT[bytesAfterId];
        int difference = 0;
        for (int bits = ipIdentification & 0xFFFF; bits != 0; bits &= bits - 1)
        {
            difference ^= effect[Integer.numberOfTrailingZeros(bits)];
        }
        return difference;
    }

    /**
     * Finds the IPv4 Identification that makes a received packet's ICRC match, for senders that do
     * not send ID 0. Call after {@link #computeInPlace} with ID 0 did not match.
     *
     * @param computedWithIdZero the ICRC {@link #computeInPlace} returned with ID 0.
     * @param received           the ICRC read from the packet.
     * @param udpPayloadLength   bytes from the BTH through the ICRC.
     * @return the ID (0..65535) when one exists, else -1: the packet is corrupt.
     */
    int solveIpIdentification(final int computedWithIdZero, final int received, final int udpPayloadLength)
    {
        final int bytesAfterId = PREFIX_LENGTH - IP_ID_OFFSET - 2 + udpPayloadLength - LENGTH;
        if (bytesAfterId < 0 || bytesAfterId >= ID_BIT_EFFECT.length)
        {
            return -1;
        }
        final int[] effect = ID_BIT_EFFECT[bytesAfterId];
        // Gaussian elimination over GF(2): 16 unknown ID bits, 32 equations (the register bits).
        int delta = computedWithIdZero ^ received;
        int solution = 0;
        final int[] rows = eliminationRows;
        final int[] rowIds = eliminationIds;
        int rank = 0;
        for (int bit = 0; bit < 16; bit++)
        {
            int vector = effect[bit];
            int combination = 1 << bit;
            for (int r = 0; r < rank; r++)
            {
                if ((vector & Integer.lowestOneBit(rows[r])) != 0)
                {
                    vector ^= rows[r];
                    combination ^= rowIds[r];
                }
            }
            if (vector != 0)
            {
                for (int r = 0; r < rank; r++)
                {
                    if ((rows[r] & Integer.lowestOneBit(vector)) != 0)
                    {
                        rows[r] ^= vector;
                        rowIds[r] ^= combination;
                    }
                }
                rows[rank] = vector;
                rowIds[rank] = combination;
                rank++;
            }
        }
        for (int r = 0; r < rank; r++)
        {
            if ((delta & Integer.lowestOneBit(rows[r])) != 0)
            {
                delta ^= rows[r];
                solution ^= rowIds[r];
            }
        }
        return delta == 0 ? solution & 0xFFFF : -1;
    }
}
