package io.ringwire.rdma.socket;

import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.SendFlags;
import io.ringwire.rdma.socket.SocketEnds.End;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A zero-length RDMA WRITE checks neither its rkey nor its address and touches no memory (IBA
 * C9-88), over the socket provider as over roce: one naming no region succeeds, with its immediate,
 * and the connection stays up.
 */
class SocketZeroLengthWriteTest
{
    private final SocketEnds ends = new SocketEnds();

    @AfterEach
    void close()
    {
        ends.close();
    }

    @Test
    void aZeroLengthWriteNamingNoRegionSucceedsAndItsImmediateArrives()
    {
        final End a = ends.open();
        final End b = ends.open();
        a.first().modifyToReadyToReceive(b.first().localEndpoint());
        a.first().modifyToReadyToSend();
        b.first().modifyToReadyToReceive(a.first().localEndpoint());
        b.first().modifyToReadyToSend();

        assertEquals(PostResult.OK, b.first().postReceive(7, b.region(), 0, 0));
        assertEquals(PostResult.OK, a.first().postWrite(1, a.region(), 0, 0, 0L, 0, SendFlags.SIGNALED));
        assertEquals(PostResult.OK, a.first().postWriteWithImmediate(2, a.region(), 0, 0, 0L, 0, 42,
            SendFlags.SIGNALED));

        final List<String> seen = new ArrayList<>();
        final boolean[] done = new boolean[3];
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!(done[0] && done[1] && done[2]) && System.nanoTime() - deadlineNs < 0)
        {
            a.completionQueue().poll((id, opcode, status, length, imm, qpn) ->
            {
                seen.add("writer " + id + ": " + CompletionStatus.name(status));
                done[(int)id - 1] |= status == CompletionStatus.SUCCESS;
            }, 16);
            b.completionQueue().poll((id, opcode, status, length, imm, qpn) ->
            {
                seen.add("receiver: " + CompletionOpcode.name(opcode) + " " + CompletionStatus.name(status));
                done[2] |= opcode == CompletionOpcode.RECV_RDMA_WITH_IMM && status == CompletionStatus.SUCCESS &&
                    length == 0 && imm == 42;
            }, 16);
        }
        assertTrue(done[0] && done[1] && done[2], "both writes done, the immediate received: " + seen);
        assertEquals(QueuePairState.READY_TO_SEND, a.first().state());
        assertEquals(QueuePairState.READY_TO_SEND, b.first().state());
        SocketEnds.assertWriteArrives(a, a.first(), b, b.first());
    }
}
