package io.ringwire.rdma.roce;

import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * The ICRC of a packet held anywhere, for tests that build or check packets: lays the prefix out in
 * front of a copy of the packet and runs {@link Icrc#computeInPlace}, the path the provider sends and
 * receives with. Allocates per call; test code only.
 */
final class IcrcReference
{
    private IcrcReference()
    {
    }

    /**
     * @param icrc               the calculator.
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
    static int compute(
        final Icrc icrc,
        final int sourceAddress,
        final int destinationAddress,
        final int ipIdentification,
        final int sourcePort,
        final int destinationPort,
        final ByteBuffer udpPayload,
        final int offset,
        final int udpPayloadLength)
    {
        final ByteBuffer frame = ByteBuffer.allocateDirect(Icrc.HEADROOM + udpPayloadLength);
        final UnsafeBuffer view = new UnsafeBuffer(frame);
        Icrc.writePrefix(view, sourceAddress, destinationAddress, sourcePort, destinationPort);
        view.putBytes(Icrc.HEADROOM, udpPayload, offset, udpPayloadLength - Icrc.LENGTH);
        return icrc.computeInPlace(frame, view, ipIdentification, udpPayloadLength);
    }
}
