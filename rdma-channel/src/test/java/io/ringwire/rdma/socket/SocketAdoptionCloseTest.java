package io.ringwire.rdma.socket;

import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The passive side's connection is offered on whichever thread polls the device's listener, while
 * the queue pair's own thread may be closing it: the connection is then either refused (the device
 * closes it) or closed with the queue pair, never left open with nobody to close it.
 */
class SocketAdoptionCloseTest
{
    private final SocketEnds ends = new SocketEnds();

    @AfterEach
    void close()
    {
        ends.close();
    }

    @Test
    void aConnectionAdoptedWhileItsQueuePairClosesIsClosedWithIt() throws Exception
    {
        final SocketEnds.End a = ends.open();
        final SocketEnds.End b = ends.open();
        final boolean aConnects = a.device().address().compareTo(b.device().address()) < 0;
        final SocketEnds.End connecting = aConnects ? a : b;
        final SocketEnds.End waiting = aConnects ? b : a;
        final SocketQueuePair queuePair = (SocketQueuePair)waiting.first();
        final QueuePairEndpoint peer = connecting.first().localEndpoint();
        queuePair.modifyToReadyToReceive(peer); // the side that sorts higher waits for the peer's hello

        try (SocketChannel incoming = SocketChannel.open())
        {
            final Thread closer = new Thread(queuePair::close, "owner-closing");
            final SocketConnector.Offer offer = queuePair.connector().offer(incoming, peer.queuePairNumber(),
                queuePair.startPsn(), peer.startPsn(), () ->
                {
                    // The owning thread closes its queue pair between the offer's checks and its taking the
                    // channel: the channel is taken once the close waits on the connector, or once the close
                    // has run through (no lock to wait on), whichever comes first.
                    closer.start();
                    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    while (closer.isAlive() && closer.getState() != Thread.State.BLOCKED &&
                        System.nanoTime() - deadline < 0)
                    {
                        Thread.onSpinWait();
                    }
                });
            closer.join(5_000);

            assertFalse(closer.isAlive(), "the close completed");
            assertEquals(QueuePairState.ERROR, queuePair.state());
            assertTrue(offer == SocketConnector.Offer.REFUSED || !incoming.isOpen(),
                "a connection taken as its queue pair closed is closed with it (offer: " + offer + ")");
        }
    }
}
