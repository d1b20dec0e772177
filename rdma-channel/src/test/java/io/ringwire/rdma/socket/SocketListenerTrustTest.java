package io.ringwire.rdma.socket;

import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.config.EndpointAddress;
import io.ringwire.rdma.socket.SocketEnds.End;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A socket device's listener is open to anyone who reaches its port. It hands a connection only to
 * the peer its queue pair negotiated with through the connection manager, and what strangers leave
 * open there stays bounded and does not keep the real peer out.
 */
class SocketListenerTrustTest
{
    private final SocketEnds ends = new SocketEnds();
    private final List<SocketChannel> strangers = new ArrayList<>();

    @AfterEach
    void close()
    {
        strangers.forEach(CloseHelper::quietClose);
        ends.close();
    }

    private record Pair(End connecting, End waiting)
    {
        static Pair of(final End a, final End b)
        {
            // The device whose address sorts first connects; the other one waits for incoming connections.
            return a.device().address().compareTo(b.device().address()) < 0 ? new Pair(a, b) : new Pair(b, a);
        }
    }

    private SocketChannel stranger(final End target) throws IOException
    {
        final SocketChannel channel = SocketChannel.open(EndpointAddress.resolve("listener", target.device().address()));
        strangers.add(channel);
        return channel;
    }

    @Test
    void aHelloThatNamesTheRightQueuePairsButNotTheirNegotiatedPsnsIsRefusedAndTheRealPeerConnects() throws IOException
    {
        final Pair pair = Pair.of(ends.open(), ends.open());
        pair.waiting().first().modifyToReadyToReceive(pair.connecting().first().localEndpoint());
        pair.waiting().first().modifyToReadyToSend();

        // A stranger knows both queue pair numbers (they are small and sequential) but not the random
        // start PSNs the two sides exchanged through the authenticated connection manager.
        final int destinationPsn = pair.waiting().first().localEndpoint().startPsn() ^ 0x5A5A5A;
        final int sourcePsn = pair.connecting().first().localEndpoint().startPsn() ^ 0x0F0F0F;
        final ByteBuffer forged = SocketFrame.hello(pair.waiting().first().queuePairNumber(),
            pair.connecting().first().queuePairNumber(), destinationPsn, sourcePsn);
        final SocketChannel stranger = stranger(pair.waiting());
        while (forged.hasRemaining())
        {
            stranger.write(forged);
        }
        SocketEnds.pollFor(pair.waiting(), 300);
        assertEquals(1, pair.waiting().device().counters().get(DeviceCounters.CONNECTIONS_REFUSED),
            "the forged hello was refused: " + pair.waiting().device().counters());

        pair.connecting().first().modifyToReadyToReceive(pair.waiting().first().localEndpoint());
        pair.connecting().first().modifyToReadyToSend();
        SocketEnds.assertWriteArrives(pair.connecting(), pair.connecting().first(), pair.waiting(), pair.waiting().first());
        SocketEnds.assertWriteArrives(pair.waiting(), pair.waiting().first(), pair.connecting(), pair.connecting().first());
    }

    @Test
    void aStrangersHelloForAQueuePairNotYetAtRtrIsRefusedAtOnceNotKeptUntilTheTimeout() throws IOException
    {
        final Pair pair = Pair.of(ends.open(), ends.open());
        pair.waiting().first().modifyToReadyToReceive(pair.connecting().first().localEndpoint());
        pair.waiting().first().modifyToReadyToSend();
        // The second queue pair is still in INIT: a peer's hello for it would wait for its RTR.
        final ByteBuffer forged = SocketFrame.hello(pair.waiting().second().queuePairNumber(),
            pair.connecting().second().queuePairNumber(), pair.waiting().second().localEndpoint().startPsn() ^ 1, 7);
        final SocketChannel stranger = stranger(pair.waiting());
        while (forged.hasRemaining())
        {
            stranger.write(forged);
        }
        SocketEnds.pollFor(pair.waiting(), 300);
        assertEquals(1, pair.waiting().device().counters().get(DeviceCounters.CONNECTIONS_REFUSED));
        assertEquals(0, ((SocketDevice)pair.waiting().device()).pendingHellos(), "nothing kept for the queue pair");
    }

    @Test
    void anIpv6SourceIsItsSlash64AndAnIpv4SourceItsAddress() throws IOException
    {
        assertTrue(SocketDevice.sameSource(InetAddress.getByName("2001:db8:1:2::1"),
            InetAddress.getByName("2001:db8:1:2:ffff::9")));
        assertFalse(SocketDevice.sameSource(InetAddress.getByName("2001:db8:1:2::1"),
            InetAddress.getByName("2001:db8:1:3::1")));
        assertTrue(SocketDevice.sameSource(InetAddress.getByName("10.0.0.1"), InetAddress.getByName("10.0.0.1")));
        assertFalse(SocketDevice.sameSource(InetAddress.getByName("10.0.0.1"), InetAddress.getByName("10.0.0.2")));
    }

    @Test
    void idleConnectionsFromOneAddressStayBoundedAndTheRealPeerFromThatAddressStillConnects() throws IOException
    {
        final Pair pair = Pair.of(ends.open(), ends.open());
        pair.waiting().first().modifyToReadyToReceive(pair.connecting().first().localEndpoint());
        pair.waiting().first().modifyToReadyToSend();
        final SocketDevice listening = (SocketDevice)pair.waiting().device();

        final int flood = SocketDevice.MAX_PENDING_HELLOS_PER_SOURCE * 3;
        for (int i = 0; i < flood; i++)
        {
            stranger(pair.waiting()).write(ByteBuffer.wrap(new byte[] { 'R', 'W' }));
            SocketEnds.pollFor(pair.waiting(), 1);
        }
        SocketEnds.pollFor(pair.waiting(), 200);
        assertEquals(SocketDevice.MAX_PENDING_HELLOS_PER_SOURCE, listening.pendingHellos(),
            "idle connections from one address wait up to its bound");
        assertEquals(flood - SocketDevice.MAX_PENDING_HELLOS_PER_SOURCE,
            listening.counters().get(DeviceCounters.CONNECTIONS_REFUSED), "the rest were refused and closed");
        int closedByListener = 0;
        for (final SocketChannel stranger : strangers)
        {
            stranger.configureBlocking(false);
            try
            {
                closedByListener += stranger.read(ByteBuffer.allocate(1)) < 0 ? 1 : 0;
            }
            catch (final IOException ex)
            {
                closedByListener++;
            }
        }
        assertEquals(flood - SocketDevice.MAX_PENDING_HELLOS_PER_SOURCE, closedByListener,
            "each refused connection was closed, not left open");

        // The real peer connects from the same address, within the peer timeout of those connections.
        pair.connecting().first().modifyToReadyToReceive(pair.waiting().first().localEndpoint());
        pair.connecting().first().modifyToReadyToSend();
        SocketEnds.assertWriteArrives(pair.connecting(), pair.connecting().first(), pair.waiting(), pair.waiting().first());
        assertTrue(listening.pendingHellos() <= SocketDevice.MAX_PENDING_HELLOS_PER_SOURCE);
    }
}
