package io.ringwire.rdma.roce;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;

import static io.ringwire.rdma.roce.RawUdpReceiver.IPV4_HEADER_LENGTH;
import static io.ringwire.rdma.roce.RawUdpReceiver.UDP_HEADER_LENGTH;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The socket through which a roce device reads each datagram's headers, on real loopback sockets:
 * it gets exactly the datagrams sent to its address and port, each from its IPv4 header on, and is
 * a packet socket wherever the process may open one (so other datagrams on the host are filtered
 * before the kernel copies them), and reads a packet socket's datagrams from its mapped ring: in order over
 * many laps, the overflow of a full ring dropped rather than queued, a datagram longer than a frame
 * cut short; a packet socket opened with protocol 0 takes nothing until bound. Skipped where the
 * process may open neither kind (no CAP_NET_RAW).
 */
class RawUdpReceiverTest
{
    private static final int LOOPBACK = 0x7F00_0001;
    private static final long ARRIVAL_TIMEOUT_NS = 1_000_000_000L;

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment target = arena.allocate(RoceReceiver.MAX_DATAGRAM + IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH);
    private DatagramChannel owner;
    private DatagramChannel other;
    private DatagramChannel sender;
    private RawUdpReceiver receiver;

    @BeforeEach
    void open() throws IOException
    {
        owner = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        other = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        sender = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        try
        {
            receiver = RawUdpReceiver.open(LOOPBACK, port(owner));
        }
        catch (final LibcSockets.Unavailable ex)
        {
            Assumptions.abort("this process may open neither a packet nor a raw IP socket: " + ex.getMessage());
        }
    }

    @AfterEach
    void close() throws IOException
    {
        if (null != receiver)
        {
            receiver.close();
        }
        sender.close();
        other.close();
        owner.close();
        arena.close();
    }

    @Test
    void receivesADatagramSentToItsPortFromItsIpv4Header() throws IOException
    {
        final byte[] payload = "a roce packet".getBytes(StandardCharsets.US_ASCII);
        sender.send(ByteBuffer.wrap(payload), owner.getLocalAddress());

        final long length = awaitDatagram();

        assertEquals(IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH + payload.length, length);
        final ByteBuffer datagram = target.asSlice(0, length).asByteBuffer().order(ByteOrder.BIG_ENDIAN);
        assertEquals(0x45, datagram.get(0) & 0xFF, "IPv4 without options");
        assertEquals(LibcSockets.IPPROTO_UDP, datagram.get(9) & 0xFF, "protocol");
        assertEquals(LOOPBACK, datagram.getInt(16), "destination address");
        assertEquals(port(sender), datagram.getShort(IPV4_HEADER_LENGTH) & 0xFFFF, "UDP source port");
        assertEquals(port(owner), datagram.getShort(IPV4_HEADER_LENGTH + 2) & 0xFFFF, "UDP destination port");
        final byte[] received = new byte[payload.length];
        datagram.get(IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH, received);
        assertArrayEquals(payload, received);
    }

    @Test
    void takesNothingSentToAnotherPortOrAddress() throws IOException
    {
        sender.send(ByteBuffer.wrap(new byte[] { 1 }), other.getLocalAddress());
        try (DatagramChannel elsewhere = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.2", port(owner))))
        {
            sender.send(ByteBuffer.wrap(new byte[] { 2 }), elsewhere.getLocalAddress());
            sender.send(ByteBuffer.wrap(new byte[] { 3, 3 }), owner.getLocalAddress());

            final long length = awaitDatagram();

            assertEquals(IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH + 2, length, "only the datagram sent to its port");
            assertEquals(3, target.get(JAVA_BYTE, IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH));
            assertEquals(-1, receiver.receive(target, target.byteSize()), "nothing else is queued");
        }
    }

    @Test
    void isAPacketSocketWhereTheProcessMayOpenOne()
    {
        boolean packetSocketsAllowed;
        try
        {
            LibcSockets.closeDescriptor(LibcSockets.openSocket(LibcSockets.AF_PACKET, LibcSockets.SOCK_DGRAM, 0));
            packetSocketsAllowed = true;
        }
        catch (final LibcSockets.Unavailable ex)
        {
            packetSocketsAllowed = false;
        }
        assertEquals(packetSocketsAllowed, receiver.isPacketSocket());
    }

    /**
     * What the receiver's opening order rests on: its packet socket takes no datagram before its
     * filter and ring are in place (setting a ring empties the queue, which would drop one).
     */
    @Test
    void aPacketSocketOpenedWithProtocolZeroTakesNothingUntilBoundToIpv4() throws Throwable
    {
        Assumptions.assumeTrue(receiver.isPacketSocket(), "no packet sockets here");
        final int fd = LibcSockets.openSocket(LibcSockets.AF_PACKET, LibcSockets.SOCK_DGRAM, 0);
        try
        {
            sendAndAwaitDelivery(1);
            assertEquals(-1, (long)LibcSockets.LIBC.recv().invokeExact(fd, target, target.byteSize(),
                LibcSockets.MSG_DONTWAIT), "an unbound packet socket queued a datagram");

            LibcSockets.bindPacketSocket(fd, RawUdpReceiver.ETH_P_IP_NETWORK_ORDER);
            sendAndAwaitDelivery(2);
            // Bound to every interface without a filter, it takes every IPv4 packet on the host: ours among them.
            final long deadline = System.nanoTime() + ARRIVAL_TIMEOUT_NS;
            boolean found = false;
            while (!found)
            {
                assertTrue(System.nanoTime() - deadline < 0,
                    "the bound socket got no datagram to the port within a second");
                final long length = (long)LibcSockets.LIBC.recv().invokeExact(fd, target, target.byteSize(),
                    LibcSockets.MSG_DONTWAIT);
                final ByteBuffer datagram = target.asByteBuffer().order(ByteOrder.BIG_ENDIAN);
                found = length == IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH + 4 &&
                    datagram.get(9) == LibcSockets.IPPROTO_UDP &&
                    (datagram.getShort(IPV4_HEADER_LENGTH + 2) & 0xFFFF) == port(owner) &&
                    datagram.getInt(IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH) == 2;
            }
        }
        finally
        {
            LibcSockets.closeDescriptor(fd);
        }
    }

    @Test
    void readsAPacketSocketsDatagramsFromAMappedRing() throws IOException
    {
        Assumptions.assumeTrue(receiver.isPacketSocket(), "a raw IP socket has no ring");
        assertTrue(receiver.hasRing());

        sendAndAwaitDelivery(17);

        assertEquals(17, awaitSequence());
    }

    @Test
    void keepsReceivingOverManyLapsOfTheRing() throws IOException
    {
        Assumptions.assumeTrue(receiver.hasRing(), "no packet ring here");
        for (int i = 0; i < 3 * PacketRing.FRAMES + 7; i++)
        {
            sendAndAwaitDelivery(i);

            assertEquals(i, awaitSequence());
        }
    }

    @Test
    void aFullRingKeepsItsDatagramsInOrderAndDropsWhatComesUntilFramesAreHandedBack() throws IOException
    {
        Assumptions.assumeTrue(receiver.hasRing(), "no packet ring here");
        final int sent = PacketRing.FRAMES + 20;
        for (int i = 0; i < sent; i++)
        {
            sendAndAwaitDelivery(i);
        }

        for (int i = 0; i < PacketRing.FRAMES; i++)
        {
            assertEquals(i, awaitSequence(), "the first datagrams, in order");
        }
        assertEquals(-1, receiver.receive(target, target.byteSize()), "the rest were dropped, not queued");
        sendAndAwaitDelivery(sent);
        assertEquals(sent, awaitSequence(), "the ring takes datagrams again once its frames are back");
    }

    @Test
    void aPollAfterTheCloseIsRefusedRatherThanAReadOfUnmappedMemory()
    {
        Assumptions.assumeTrue(receiver.hasRing(), "no packet ring here");
        receiver.close();

        assertThrows(IllegalStateException.class, () -> receiver.receive(target, target.byteSize()));
    }

    @Test
    void aDatagramLongerThanAFrameArrivesCutShort() throws IOException
    {
        Assumptions.assumeTrue(receiver.hasRing(), "no packet ring here");
        final int payload = PacketRing.FRAME_SIZE + 1000;
        sender.send(ByteBuffer.allocate(payload), owner.getLocalAddress());

        final long length = awaitDatagram();

        final int totalLength = target.asByteBuffer().order(ByteOrder.BIG_ENDIAN).getShort(2) & 0xFFFF;
        assertEquals(IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH + payload, totalLength, "the IPv4 header's total length");
        assertTrue(length < totalLength, "only " + length + " bytes of it: the receiver sees it was cut short");
    }

    /**
     * Sends a datagram of a sequence number to the receiver's port and waits until the port's owner
     * has it: the kernel hands a datagram to packet sockets before the UDP socket that owns its port,
     * so by then the ring has it too (or has dropped it), whatever the softirq's timing.
     */
    private void sendAndAwaitDelivery(final int sequence) throws IOException
    {
        owner.configureBlocking(false);
        sender.send(ByteBuffer.allocate(4).putInt(0, sequence), owner.getLocalAddress());
        final ByteBuffer delivered = ByteBuffer.allocate(16);
        final long deadline = System.nanoTime() + ARRIVAL_TIMEOUT_NS;
        while (null == owner.receive(delivered.clear()))
        {
            assertTrue(System.nanoTime() - deadline < 0, "the owner got no datagram within a second");
            Thread.onSpinWait();
        }
        assertEquals(sequence, delivered.getInt(0));
    }

    /** @return the sequence number the next datagram from the receiver carries. */
    private int awaitSequence()
    {
        assertEquals(IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH + 4, awaitDatagram());
        return target.asByteBuffer().order(ByteOrder.BIG_ENDIAN).getInt(IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH);
    }

    private long awaitDatagram()
    {
        final long deadline = System.nanoTime() + ARRIVAL_TIMEOUT_NS;
        long length;
        while ((length = receiver.receive(target, target.byteSize())) < 0)
        {
            assertTrue(System.nanoTime() - deadline < 0, "no datagram within a second");
            Thread.onSpinWait();
        }
        return length;
    }

    private static int port(final DatagramChannel channel) throws IOException
    {
        return ((InetSocketAddress)channel.getLocalAddress()).getPort();
    }
}
