package io.ringwire.rdma.roce;

import org.junit.jupiter.api.Test;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transmitter's IPv4 Identification bookkeeping against the real kernel: what it stamps into
 * each packet's ICRC is the ID the kernel gives that packet, on loopback UDP.
 */
class RoceTransmitterTest
{
    private static final int PACKET = 64;
    private static final Inet4Address LOOPBACK = loopback();

    private final Icrc icrc = new Icrc();
    private final ByteBuffer datagram = ByteBuffer.allocateDirect(2048);

    private static Inet4Address loopback()
    {
        try
        {
            return (Inet4Address)InetAddress.getByName("127.0.0.1");
        }
        catch (final Exception ex)
        {
            throw new AssertionError(ex);
        }
    }

    private static DatagramChannel receiver() throws Exception
    {
        final DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET);
        channel.setOption(StandardSocketOptions.SO_RCVBUF, 4 * 1024 * 1024);
        channel.bind(new InetSocketAddress(LOOPBACK, 0));
        channel.configureBlocking(false);
        return channel;
    }

    private static int port(final DatagramChannel channel) throws Exception
    {
        return ((InetSocketAddress)channel.getLocalAddress()).getPort();
    }

    private static RoceTransmitter transmitterTo(final int port, final int sourcePort, final boolean tryConnected)
    {
        return new RoceTransmitter(LOOPBACK, new InetSocketAddress(LOOPBACK, port), sourcePort, 1024, tryConnected);
    }

    private static void fill(final RoceTransmitter transmitter, final int sequence)
    {
        for (int i = 0; i < PACKET - Icrc.LENGTH; i += 4)
        {
            transmitter.packet().putInt(i, sequence * 31 + i);
        }
    }

    /** The ID the sender stamped into a received packet's ICRC, solved from the ICRC. */
    private static int stampedIdentification(
        final Icrc icrc, final ByteBuffer datagram, final int length, final int sourcePort, final int destinationPort)
    {
        final int local = LOOPBACK.hashCode();
        final int withIdZero = IcrcReference.compute(icrc, local, local, 0, sourcePort, destinationPort, datagram, 0, length);
        final int stored = datagram.order(ByteOrder.LITTLE_ENDIAN).getInt(length - Icrc.LENGTH);
        return withIdZero == stored ? 0 : icrc.solveIpIdentification(withIdZero, stored, length);
    }

    private static ByteBuffer receiveOne(final DatagramChannel receiver, final ByteBuffer into) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        into.clear();
        while (null == receiver.receive(into))
        {
            assertTrue(System.nanoTime() < deadline, "no datagram within 5 s");
            Thread.onSpinWait();
        }
        return into.flip();
    }

    @Test
    void aConnectedTransmitterStampsEachPacketWithTheIdentificationTheKernelGivesIt() throws Exception
    {
        try (DatagramChannel receiver = receiver(); RoceTransmitter transmitter = transmitterTo(port(receiver), 0, true))
        {
            assertTrue(transmitter.isConnected(), "Linux loops transmit timestamps back: the connected socket is used");
            final int first = transmitter.nextIpIdentification();
            for (int i = 0; i < 2000; i++)
            {
                fill(transmitter, i);
                assertTrue(transmitter.send(PACKET), "send " + i);
                final ByteBuffer received = receiveOne(receiver, datagram);
                assertEquals(PACKET, received.remaining());
                assertEquals((first + i) & 0xFFFF,
                    stampedIdentification(icrc, received, PACKET, transmitter.sourcePort(), port(receiver)),
                    "packet " + i + "'s ICRC covers the next ID in sequence");
            }
            assertEquals((first + 2000) & 0xFFFF, transmitter.nextIpIdentification());
            assertEquals(transmitter.nextIpIdentification(), transmitter.probeKernelIpIdentification(),
                "after 2000 sends the kernel's next ID is the one the transmitter expects");
        }
    }

    @Test
    void aSendRefusedByAnIcmpErrorIsFollowedByRelearningTheIdentification() throws Exception
    {
        final int closedPort;
        try (DatagramChannel gone = receiver())
        {
            closedPort = port(gone);
        }
        try (RoceTransmitter transmitter = transmitterTo(closedPort, 0, true))
        {
            assertTrue(transmitter.isConnected());
            int refused = 0;
            for (int i = 0; i < 200; i++)
            {
                fill(transmitter, i);
                if (!transmitter.send(PACKET))
                {
                    refused++;
                }
                Thread.sleep(1); // the port-unreachable reply arrives and fails the next send
            }
            assertTrue(refused > 0, "ECONNREFUSED failed some sends");
            assertTrue(refused < 200, "the sends in between went out");
            // A send that learns the ID again first: whatever the failures used, the count is right.
            fill(transmitter, 200);
            transmitter.send(PACKET);
            Thread.sleep(1);
            final int expected = transmitter.nextIpIdentification();
            final int kernels = transmitter.probeKernelIpIdentification();
            assertEquals(expected, kernels, "refused sends used no ID the transmitter did not count");
        }
    }

    @Test
    void anUnconnectedTransmitterSendsIdentificationZero() throws Exception
    {
        try (DatagramChannel receiver = receiver(); RoceTransmitter transmitter = transmitterTo(port(receiver), 0, false))
        {
            assertFalse(transmitter.isConnected());
            for (int i = 0; i < 100; i++)
            {
                fill(transmitter, i);
                assertTrue(transmitter.send(PACKET));
                final ByteBuffer received = receiveOne(receiver, datagram);
                assertEquals(0, stampedIdentification(icrc, received, PACKET, transmitter.sourcePort(), port(receiver)));
            }
            assertEquals(-1, transmitter.probeKernelIpIdentification());
        }
    }

    @Test
    void aConnectedTransmitterSendsFromTheFlowEntropyPortWhenItIsFree() throws Exception
    {
        final int free;
        try (DatagramChannel probe = receiver())
        {
            free = port(probe);
        }
        try (DatagramChannel receiver = receiver();
            RoceTransmitter transmitter = transmitterTo(port(receiver), free, true);
            RoceTransmitter second = transmitterTo(port(receiver), free, true))
        {
            assertEquals(free, transmitter.sourcePort());
            assertNotNull(second);
            assertTrue(second.sourcePort() != free, "a taken entropy port falls back to any port");
        }
    }
}
