package io.ringwire.rdma.roce;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads classic pcap files (Ethernet link type) of RoCEv2 over IPv4, for the wire-vector tests.
 */
final class Pcap
{
    /**
     * One captured RoCEv2 packet, split into the fields the ICRC needs.
     *
     * @param sourceAddress      IPv4 source.
     * @param destinationAddress IPv4 destination.
     * @param ipIdentification   IPv4 ID.
     * @param ipFlags            flags and fragment offset.
     * @param sourcePort         UDP source port.
     * @param destinationPort    UDP destination port.
     * @param udpPayload         BTH through ICRC, in a direct buffer at index 0.
     */
    record Packet(int sourceAddress, int destinationAddress, int ipIdentification, int ipFlags, int sourcePort,
        int destinationPort, ByteBuffer udpPayload)
    {
        int length()
        {
            return udpPayload.capacity();
        }
    }

    private Pcap()
    {
    }

    /**
     * @param name a capture in the test resources' {@code roce} folder (its README says what each is).
     * @return its path.
     */
    static Path testData(final String name)
    {
        final URL resource = Pcap.class.getResource("/roce/" + name);
        if (null == resource)
        {
            throw new IllegalStateException("test resource roce/" + name + " is missing from the test classpath");
        }
        try
        {
            return Path.of(resource.toURI());
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalStateException(resource + " is not a file", ex);
        }
    }

    static List<Packet> read(final Path file) throws IOException
    {
        final ByteBuffer data = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        if (data.getInt(0) != 0xA1B2C3D4 || data.getInt(20) != 1)
        {
            throw new IOException(file + " is not a little-endian microsecond pcap of Ethernet frames");
        }
        final List<Packet> packets = new ArrayList<>();
        int offset = 24;
        while (offset + 16 <= data.capacity())
        {
            final int captured = data.getInt(offset + 8);
            final int frame = offset + 16;
            final ByteBuffer be = data.duplicate().order(ByteOrder.BIG_ENDIAN);
            final int ip = frame + 14;
            final int udp = ip + 20;
            final int udpLength = be.getShort(udp + 4) & 0xFFFF;
            final ByteBuffer payload = ByteBuffer.allocateDirect(udpLength - 8);
            payload.put(0, data.array(), udp + 8, udpLength - 8);
            packets.add(new Packet(be.getInt(ip + 12), be.getInt(ip + 16), be.getShort(ip + 4) & 0xFFFF,
                be.getShort(ip + 6) & 0xFFFF, be.getShort(udp) & 0xFFFF, be.getShort(udp + 2) & 0xFFFF, payload));
            offset = frame + captured;
        }
        return packets;
    }
}
