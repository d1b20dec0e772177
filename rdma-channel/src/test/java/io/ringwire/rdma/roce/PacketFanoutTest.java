package io.ringwire.rdma.roce;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;

import static io.ringwire.rdma.roce.RawUdpReceiver.IPV4_HEADER_LENGTH;
import static io.ringwire.rdma.roce.RawUdpReceiver.UDP_HEADER_LENGTH;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The process's roce packet sockets in one fanout group, on real loopback sockets: they share one
 * group, each member gets exactly the datagrams sent to its address and port, and a member that
 * closes in the middle of the group costs the member that moves into its slot no datagram, at each
 * step of the close. Skipped where the process may open no packet socket (no CAP_NET_RAW).
 */
class PacketFanoutTest
{
    private static final int LOOPBACK = 0x7F00_0001;
    private static final int MEMBERS = 4;
    private static final long ARRIVAL_TIMEOUT_NS = 1_000_000_000L;
    /** Long enough that a datagram routed astray would have been queued by then. */
    private static final long SETTLE_NS = 20_000_000L;

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment target =
        arena.allocate(RoceReceiver.MAX_DATAGRAM + IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH);
    private final List<DatagramChannel> owners = new ArrayList<>();
    private final List<RawUdpReceiver> receivers = new ArrayList<>();
    private DatagramChannel sender;
    private DatagramChannel stranger;

    @BeforeEach
    void open() throws IOException
    {
        sender = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        stranger = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        for (int i = 0; i < MEMBERS; i++)
        {
            final DatagramChannel owner = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
            owners.add(owner);
            try
            {
                receivers.add(RawUdpReceiver.open(LOOPBACK, port(owner)));
            }
            catch (final LibcSockets.Unavailable ex)
            {
                Assumptions.abort("this process may open no packet socket: " + ex.getMessage());
            }
        }
        Assumptions.assumeTrue(receivers.get(0).isPacketSocket(), "raw IP sockets join no fanout group");
        Assumptions.assumeTrue(receivers.get(0).fanoutGroup() >= 0,
            "the kernel keeps packet sockets out of groups here");
    }

    @AfterEach
    void close() throws IOException
    {
        for (final RawUdpReceiver receiver : receivers)
        {
            receiver.close();
        }
        for (final DatagramChannel owner : owners)
        {
            owner.close();
        }
        stranger.close();
        sender.close();
        arena.close();
    }

    @Test
    void theReceiversOfOneProcessShareOneGroup()
    {
        final int group = receivers.get(0).fanoutGroup();
        assertTrue(group >= 0, "the first receiver is in a group");
        for (final RawUdpReceiver receiver : receivers)
        {
            assertEquals(group, receiver.fanoutGroup());
        }
    }

    @Test
    void eachMemberGetsExactlyTheDatagramsSentToItsPort() throws IOException
    {
        send(stranger.getLocalAddress(), (byte)99);
        for (int i = MEMBERS - 1; i >= 0; i--)
        {
            send(owners.get(i).getLocalAddress(), (byte)i);
        }

        for (int i = 0; i < MEMBERS; i++)
        {
            assertEquals(i, awaitMarker(receivers.get(i)), "member " + i + " gets its own datagram");
        }
        pause();
        for (int i = 0; i < MEMBERS; i++)
        {
            assertEquals(-1, receivers.get(i).receive(target, target.byteSize()),
                "member " + i + " has nothing else, the stranger's datagram included");
        }
    }

    @Test
    void theLastMemberMovingIntoAClosedMembersSlotLosesNoDatagram() throws IOException
    {
        final RawUdpReceiver last = receivers.get(MEMBERS - 1);
        final SocketAddress lastAddress = owners.get(MEMBERS - 1).getLocalAddress();
        final List<String> stepsSeen = new ArrayList<>();

        receivers.get(1).close(step ->
        {
            stepsSeen.add(step);
            send(lastAddress, (byte)stepsSeen.size());
            assertEquals(stepsSeen.size(), awaitMarker(last), "the last member's datagram " + step);
        });

        assertEquals(List.of(PacketFanout.BEFORE_CLOSE, PacketFanout.AFTER_CLOSE), stepsSeen);
        send(lastAddress, (byte)7);
        assertEquals(7, awaitMarker(last), "the last member's datagram once the group settled");
        for (final int i : new int[] { 0, 2 })
        {
            send(owners.get(i).getLocalAddress(), (byte)(10 + i));
            assertEquals(10 + i, awaitMarker(receivers.get(i)), "member " + i + " still gets its datagrams");
        }
        assertEquals(receivers.get(0).fanoutGroup(), last.fanoutGroup());
    }

    @Test
    void aReceiverOpenedAfterOthersClosedJoinsTheSameGroup() throws IOException, LibcSockets.Unavailable
    {
        final int group = receivers.get(0).fanoutGroup();
        receivers.get(0).close();
        receivers.get(2).close();
        try (DatagramChannel owner = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0)))
        {
            final RawUdpReceiver joined = RawUdpReceiver.open(LOOPBACK, port(owner));
            receivers.add(joined);

            assertNotEquals(-1, joined.fanoutGroup());
            assertEquals(group, joined.fanoutGroup(), "the group lives on while it has members");
            send(owner.getLocalAddress(), (byte)5);
            assertEquals(5, awaitMarker(joined));
            send(owners.get(3).getLocalAddress(), (byte)6);
            assertEquals(6, awaitMarker(receivers.get(3)));
        }
    }

    private void send(final SocketAddress to, final byte marker)
    {
        try
        {
            sender.send(ByteBuffer.wrap(new byte[] { marker }), to);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** @return the one payload byte of the next datagram the receiver gets. */
    private int awaitMarker(final RawUdpReceiver receiver)
    {
        final long deadline = System.nanoTime() + ARRIVAL_TIMEOUT_NS;
        long length;
        while ((length = receiver.receive(target, target.byteSize())) < 0)
        {
            assertTrue(System.nanoTime() - deadline < 0, "no datagram within a second");
            Thread.onSpinWait();
        }
        assertEquals(IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH + 1, length);
        return target.get(JAVA_BYTE, IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH);
    }

    private static void pause()
    {
        final long until = System.nanoTime() + SETTLE_NS;
        while (System.nanoTime() - until < 0)
        {
            Thread.onSpinWait();
        }
    }

    private static int port(final DatagramChannel channel) throws IOException
    {
        return ((InetSocketAddress)channel.getLocalAddress()).getPort();
    }
}
