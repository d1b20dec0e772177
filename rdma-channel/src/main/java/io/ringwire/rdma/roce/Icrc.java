package io.ringwire.rdma.roce;

import org.agrona.concurrent.UnsafeBuffer;

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
 * <p>Threading: one instance per thread (it holds a {@link CRC32} and scratch memory). No allocation
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

    private final CRC32 crc = new CRC32();
    /**
     * The CRC's whole input laid out in one buffer (the prefix, then a copy of BTH .. pad with the
     * masked byte set), so the intrinsic runs once per packet: four calls over the pieces cost more
     * in call and setup than the CRC of a small packet itself.
     */
    private final ByteBuffer input = ByteBuffer.allocateDirect(PREFIX_LENGTH + MAX_SOLVABLE_PAYLOAD);
    private final UnsafeBuffer inputView = new UnsafeBuffer(input);
    private final int[] eliminationRows = new int[16];
    private final int[] eliminationIds = new int[16];

    private static int step(final int register, final int value)
    {
        return (register >>> 8) ^ TABLE[(register ^ value) & 0xFF];
    }

    /**
     * Computes the ICRC of a RoCEv2 packet sent over IPv4.
     *
     * @param sourceAddress      IPv4 source, as an int (network order read big-endian).
     * @param destinationAddress IPv4 destination.
     * @param ipIdentification   the IPv4 Identification field.
     * @param sourcePort         UDP source port.
     * @param destinationPort    UDP destination port.
     * @param udpPayload         buffer holding BTH .. ICRC (the ICRC itself is not read).
     * @param offset             index of the BTH in {@code udpPayload}.
     * @param udpPayloadLength   bytes from the BTH through the ICRC, inclusive.
     * @return the ICRC as the int whose little-endian bytes are stored on the wire.
     */
    int compute(
        final int sourceAddress,
        final int destinationAddress,
        final int ipIdentification,
        final int sourcePort,
        final int destinationPort,
        final ByteBuffer udpPayload,
        final int offset,
        final int udpPayloadLength)
    {
        final int covered = udpPayloadLength - LENGTH;
        fillPrefix(sourceAddress, destinationAddress, ipIdentification, sourcePort, destinationPort, udpPayloadLength);
        if (covered > MAX_SOLVABLE_PAYLOAD)
        {
            return computeInPieces(udpPayload, offset, covered);
        }
        inputView.putBytes(PREFIX_LENGTH, udpPayload, offset, covered);
        inputView.putByte(PREFIX_LENGTH + BTH_MASKED_BYTE, (byte)0xFF);
        crc.reset();
        input.limit(PREFIX_LENGTH + covered).position(0);
        crc.update(input);
        return (int)crc.getValue();
    }

    /** The CRC of a packet longer than {@link #input} holds, its prefix already there: piece by piece. */
    private int computeInPieces(final ByteBuffer udpPayload, final int offset, final int covered)
    {
        crc.reset();
        input.limit(PREFIX_LENGTH).position(0);
        crc.update(input);
        final int savedPosition = udpPayload.position();
        final int savedLimit = udpPayload.limit();
        udpPayload.limit(offset + BTH_MASKED_BYTE).position(offset);
        crc.update(udpPayload);
        crc.update(0xFF);
        udpPayload.limit(offset + covered).position(offset + BTH_MASKED_BYTE + 1);
        crc.update(udpPayload);
        udpPayload.limit(savedLimit).position(savedPosition);
        return (int)crc.getValue();
    }

    private void fillPrefix(
        final int sourceAddress,
        final int destinationAddress,
        final int ipIdentification,
        final int sourcePort,
        final int destinationPort,
        final int udpPayloadLength)
    {
        inputView.putLong(0, -1L);
        final int ip = 8;
        final int totalLength = IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH + udpPayloadLength;
        inputView.putByte(ip, (byte)0x45);
        inputView.putByte(ip + 1, (byte)0xFF); // TOS masked
        putShort(ip + 2, totalLength);
        putShort(ip + 4, ipIdentification);
        putShort(ip + 6, IP_FLAGS_DONT_FRAGMENT);
        inputView.putByte(ip + 8, (byte)0xFF); // TTL masked
        inputView.putByte(ip + 9, (byte)17);
        inputView.putShort(ip + 10, (short)0xFFFF); // header checksum masked
        putInt(ip + 12, sourceAddress);
        putInt(ip + 16, destinationAddress);
        final int udp = ip + IPV4_HEADER_LENGTH;
        putShort(udp, sourcePort);
        putShort(udp + 2, destinationPort);
        putShort(udp + 4, UDP_HEADER_LENGTH + udpPayloadLength);
        inputView.putShort(udp + 6, (short)0xFFFF); // UDP checksum masked
    }

    /**
     * What a given IPv4 Identification changes in the ICRC against ID 0: {@code compute(.., id, ..)}
     * equals {@code compute(.., 0, ..) ^ identificationDifference(id, length)}. Lets a receiver
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
     * not send ID 0. Call after {@link #compute} with ID 0 did not match.
     *
     * @param computedWithIdZero the ICRC {@link #compute} returned with ID 0.
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

    private void putShort(final int index, final int value)
    {
        inputView.putShort(index, (short)value, ByteOrder.BIG_ENDIAN);
    }

    private void putInt(final int index, final int value)
    {
        inputView.putInt(index, value, ByteOrder.BIG_ENDIAN);
    }
}
