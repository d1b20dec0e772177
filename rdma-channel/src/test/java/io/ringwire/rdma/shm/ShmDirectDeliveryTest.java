package io.ringwire.rdma.shm;

import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.SendFlags;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * shm hands a completion to the poll's handler from inside the queue pair's progress (the
 * completion queue was empty), so the handler can post while the progress that called it is still
 * running. A post into a full send queue drives progress: it must not re-enter the running one,
 * which would read the record being delivered a second time.
 */
final class ShmDirectDeliveryTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final int WRITES = 3;

    @TempDir
    Path directory;

    private ShmSide writer;
    private ShmSide answerer;

    @AfterEach
    void close()
    {
        CloseHelper.closeAll(writer, answerer);
    }

    @Test
    void aHandlerPostingIntoAFullSendQueueDoesNotMakeTheRecordBeingDeliveredArriveTwice()
    {
        writer = new ShmSide(ShmSide.config(directory, 2000), 64 * 1024);
        answerer = new ShmSide(ShmSide.config(directory, 2000), 64 * 1024);
        ShmSide.connect(writer, answerer);
        for (int i = 0; i < ShmSide.SEND_DEPTH; i++)
        {
            assertEquals(PostResult.OK, writer.queuePair.postReceive(i, writer.region, 0, 64));
        }
        // The answerer's send queue fills with SENDs the writer, which does not poll, never acknowledges.
        for (int i = 0; i < ShmSide.SEND_DEPTH; i++)
        {
            assertEquals(PostResult.OK, answerer.queuePair.postSend(i, answerer.region, 0, 8, SendFlags.NONE));
        }
        for (int i = 0; i < WRITES; i++)
        {
            assertEquals(PostResult.OK, answerer.queuePair.postReceive(100 + i, answerer.region, 0, 0));
            assertEquals(PostResult.OK, writer.queuePair.postWriteWithImmediate(i, writer.region, 0, 8,
                answerer.region.address(), answerer.region.rkey(), i, SendFlags.NONE));
        }

        final List<Integer> immediates = new ArrayList<>();
        final List<Integer> answers = new ArrayList<>();
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (immediates.size() < WRITES && System.nanoTime() - deadline < 0)
        {
            answerer.completionQueue.poll((workRequestId, opcode, status, byteLength, immediate, queuePairNumber) ->
            {
                assertEquals(CompletionStatus.SUCCESS, status);
                assertEquals(CompletionOpcode.RECV_RDMA_WITH_IMM, opcode);
                immediates.add(immediate);
                answers.add(answerer.queuePair.postSend(1000 + immediate, answerer.region, 0, 8, SendFlags.NONE));
            }, 16);
        }

        assertEquals(List.of(0, 1, 2), immediates, "each write's immediate once, in order");
        assertEquals(List.of(PostResult.QUEUE_FULL, PostResult.QUEUE_FULL, PostResult.QUEUE_FULL), answers,
            "the answers find the send queue full");
    }

    /**
     * A handler that closes the queue pair whose progress is delivering to it (an application
     * dropping a connection on its first error) must not have the ring that progress goes on to read
     * unmapped under it: the release waits until the progress has returned.
     */
    @Test
    void aHandlerClosingTheQueuePairBeingProgressedHasItsRingReleasedOnlyAfterTheProgressReturns()
    {
        writer = new ShmSide(ShmSide.config(directory, 2000), 64 * 1024);
        answerer = new ShmSide(ShmSide.config(directory, 2000), 64 * 1024);
        ShmSide.connect(writer, answerer);
        for (int i = 0; i < WRITES; i++)
        {
            assertEquals(PostResult.OK, answerer.queuePair.postReceive(100 + i, answerer.region, 0, 0));
            assertEquals(PostResult.OK, writer.queuePair.postWriteWithImmediate(i, writer.region, 0, 8,
                answerer.region.address(), answerer.region.rkey(), i, SendFlags.NONE));
        }
        final Path ring = answerer.device.shmAddress().ringFile(answerer.queuePair.queuePairNumber());
        assertTrue(Files.exists(ring), "the answerer's inbound ring is a file while it is open");

        final List<Boolean> ringPresentInHandler = new ArrayList<>();
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (ringPresentInHandler.isEmpty() && System.nanoTime() - deadline < 0)
        {
            answerer.completionQueue.poll((workRequestId, opcode, status, byteLength, immediate, queuePairNumber) ->
            {
                if (ringPresentInHandler.isEmpty())
                {
                    answerer.queuePair.close();
                    ringPresentInHandler.add(Files.exists(ring));
                }
            }, 16);
        }

        assertEquals(List.of(true), ringPresentInHandler, "closed from the handler, the ring outlives the progress");
        assertEquals(QueuePairState.ERROR, answerer.queuePair.state());
        assertFalse(Files.exists(ring), "released once the poll that ran the handler returned");
        answerer.completionQueue.poll((workRequestId, opcode, status, byteLength, immediate, queuePairNumber) ->
        {
        }, 16);
    }
}
