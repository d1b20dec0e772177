package io.ringwire.rdma.socket;

import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.socket.SocketEnds.End;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The socket provider's data connection goes from the device with the lower address to the other,
 * and the connection manager's passive side reaches RTR (and so connects) before it sends REP: the
 * hello of a queue pair can reach the other device before that device's queue pair is at RTR. When
 * another queue pair of that device is waiting for its own connection meanwhile, it reads that hello
 * first. The hello must then wait for its queue pair, not be closed: a closed hello leaves its
 * queue pair (a messaging subscriber's, say, in a fan-out) without a connection until the peer
 * timeout.
 */
class SocketConnectionOrderTest
{
    private final SocketEnds ends = new SocketEnds();

    @AfterEach
    void close()
    {
        ends.close();
    }

    @Test
    void aHelloThatArrivesBeforeItsQueuePairIsAtRtrWaitsForItWhileAnotherQueuePairPollsTheListener()
    {
        final End a = ends.open();
        final End b = ends.open();
        // The device whose address sorts first connects; the other one waits for incoming connections.
        final boolean aConnects = a.device().address().compareTo(b.device().address()) < 0;
        final End connecting = aConnects ? a : b;
        final End waiting = aConnects ? b : a;

        // The waiting device's first queue pair reaches RTR and waits for a hello that does not come yet.
        waiting.first().modifyToReadyToReceive(connecting.first().localEndpoint());
        waiting.first().modifyToReadyToSend();
        // The connecting device's second queue pair reaches RTR first: it connects and sends its hello
        // to the waiting device's second queue pair, which is still in INIT.
        connecting.second().modifyToReadyToReceive(waiting.second().localEndpoint());
        connecting.second().modifyToReadyToSend();
        // The waiting device's first queue pair polls the listener and reads that hello.
        SocketEnds.pollFor(waiting, 200);
        assertEquals(0, waiting.device().counters().get(DeviceCounters.CONNECTIONS_REFUSED),
            "the early hello was kept, not refused");

        // Only now does the waiting device's second queue pair reach RTR; the kept hello becomes its connection.
        waiting.second().modifyToReadyToReceive(connecting.second().localEndpoint());
        waiting.second().modifyToReadyToSend();
        SocketEnds.assertWriteArrives(connecting, connecting.second(), waiting, waiting.second());
    }
}
