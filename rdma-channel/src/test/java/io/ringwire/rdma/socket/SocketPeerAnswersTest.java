package io.ringwire.rdma.socket;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.SendFlags;
import io.ringwire.rdma.config.EndpointAddress;
import io.ringwire.rdma.socket.SocketEnds.End;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What a socket queue pair's requester makes of its peer's answers, with the peer a raw TCP
 * connection that speaks the wire format (it holds the negotiated start PSNs, as a peer that went
 * through the connection manager does): an ACK or NAK for a request never posted, or a NAK with a
 * status no responder sends, completes nothing as done and fails the queue pair, counted; a
 * request posted into a full queue just as the peer turns out gone completes, flushed; a peer that
 * sends requests of its own but never answers ours is lost after the peer timeout; an ACK behind a
 * peer's SEND that waits for a receive is applied at once.
 */
class SocketPeerAnswersTest
{
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(10);

    private final SocketEnds ends = new SocketEnds();
    private SocketChannel peer;
    private End local;
    private final Map<Long, Integer> completions = new HashMap<>();

    @AfterEach
    void close()
    {
        CloseHelper.quietClose(peer);
        ends.close();
    }

    /**
     * Connects a raw peer in place of the other device's first queue pair and returns the local
     * queue pair it is connected to, ready to send.
     */
    private QueuePair connectRawPeer() throws IOException
    {
        return connectRawPeer(10_000);
    }

    private QueuePair connectRawPeer(final int peerTimeoutMs) throws IOException
    {
        return connectRawPeer(peerTimeoutMs, 0);
    }

    /** @param receiveBuffer the raw peer's SO_RCVBUF, or 0 for the kernel's default. */
    private QueuePair connectRawPeer(final int peerTimeoutMs, final int receiveBuffer) throws IOException
    {
        final End a = ends.open(peerTimeoutMs);
        final End b = ends.open(peerTimeoutMs);
        // The device whose address sorts first connects; the other one waits for incoming connections.
        final boolean aConnects = a.device().address().compareTo(b.device().address()) < 0;
        local = aConnects ? b : a;
        final End impersonated = aConnects ? a : b;
        final QueuePair queuePair = local.first();
        queuePair.modifyToReadyToReceive(impersonated.first().localEndpoint());
        queuePair.modifyToReadyToSend();
        final ByteBuffer hello = SocketFrame.hello(queuePair.queuePairNumber(), impersonated.first().queuePairNumber(),
            queuePair.localEndpoint().startPsn(), impersonated.first().localEndpoint().startPsn());
        peer = SocketChannel.open();
        if (receiveBuffer > 0)
        {
            peer.setOption(StandardSocketOptions.SO_RCVBUF, receiveBuffer);
        }
        peer.connect(EndpointAddress.resolve("listener", local.device().address()));
        while (hello.hasRemaining())
        {
            peer.write(hello);
        }
        peer.configureBlocking(false);
        return queuePair;
    }

    private void write(final QueuePair queuePair, final long workRequestId)
    {
        assertEquals(PostResult.OK, queuePair.postWrite(workRequestId, local.region(), 0, 8, 0x1000, 77,
            SendFlags.SIGNALED));
    }

    /** Posts write 1 and reads it at the peer (its sequence 0): one request outstanding. */
    private QueuePair oneWriteSent(final QueuePair queuePair) throws IOException
    {
        write(queuePair, 1);
        assertEquals(0, readFrame());
        return queuePair;
    }

    /** Reads one frame the queue pair sent, driving its progress meanwhile; returns its sequence. */
    private long readFrame() throws IOException
    {
        final ByteBuffer header = ByteBuffer.allocate(SocketFrame.HEADER_LENGTH);
        final long deadline = System.nanoTime() + WAIT_NS;
        while (header.hasRemaining())
        {
            if (peer.read(header) < 0 || System.nanoTime() > deadline)
            {
                fail("no frame from the queue pair");
            }
            poll();
        }
        final UnsafeBuffer frame = new UnsafeBuffer(header);
        final ByteBuffer payload = ByteBuffer.allocate(frame.getInt(SocketFrame.FRAME_LENGTH_OFFSET, SocketFrame.ORDER) -
            SocketFrame.HEADER_LENGTH);
        while (payload.hasRemaining())
        {
            if (peer.read(payload) < 0 || System.nanoTime() > deadline)
            {
                fail("the frame's payload did not come");
            }
        }
        return SocketFrame.sequence(frame, 0);
    }

    private void answer(final byte opcode, final long sequence, final int status) throws IOException
    {
        final ByteBuffer frame = ByteBuffer.allocate(SocketFrame.HEADER_LENGTH);
        SocketFrame.writeAcknowledgement(new UnsafeBuffer(frame), 0, opcode, sequence, status);
        while (frame.hasRemaining())
        {
            peer.write(frame);
        }
    }

    private void poll()
    {
        local.completionQueue().poll((id, opcode, status, length, imm, qpn) -> completions.put(id, status), 16);
    }

    private void awaitCompletion(final long workRequestId)
    {
        final long deadline = System.nanoTime() + WAIT_NS;
        while (!completions.containsKey(workRequestId))
        {
            if (System.nanoTime() > deadline)
            {
                fail("request " + workRequestId + " never completed; completions " + completions);
            }
            poll();
        }
    }

    private long counter(final int counter)
    {
        return local.device().counters().get(counter);
    }

    @Test
    void aNakWithStatusSuccessDoesNotCompleteTheRefusedRequestAsDone() throws IOException
    {
        final QueuePair queuePair = oneWriteSent(connectRawPeer());
        answer(SocketFrame.OPCODE_NAK, 0, CompletionStatus.SUCCESS);
        awaitCompletion(1);
        assertEquals(CompletionStatus.WR_FLUSH_ERROR, completions.get(1L), CompletionStatus.name(completions.get(1L)));
        assertEquals(QueuePairState.ERROR, queuePair.state());
        assertEquals(1, counter(DeviceCounters.GHOST_ACKNOWLEDGEMENTS));
    }

    @Test
    void anAckPastTheLastRequestPostedCompletesNothingAsDone() throws IOException
    {
        final QueuePair queuePair = oneWriteSent(connectRawPeer());
        answer(SocketFrame.OPCODE_ACK, Long.MAX_VALUE, 0);
        awaitCompletion(1);
        assertEquals(CompletionStatus.WR_FLUSH_ERROR, completions.get(1L), CompletionStatus.name(completions.get(1L)));
        assertEquals(1, counter(DeviceCounters.GHOST_ACKNOWLEDGEMENTS));
    }

    @Test
    void aRealRefusalStillFailsItsRequestWithTheRespondersStatus() throws IOException
    {
        final QueuePair queuePair = connectRawPeer();
        write(queuePair, 1);
        write(queuePair, 2);
        assertEquals(0, readFrame());
        assertEquals(1, readFrame());
        answer(SocketFrame.OPCODE_NAK, 1, CompletionStatus.REMOTE_ACCESS_ERROR);
        awaitCompletion(2);
        assertEquals(CompletionStatus.SUCCESS, completions.get(1L), "the request before the refused one was done");
        assertEquals(CompletionStatus.REMOTE_ACCESS_ERROR, completions.get(2L));
        assertEquals(0, counter(DeviceCounters.GHOST_ACKNOWLEDGEMENTS));
    }

    @Test
    void aRequestPostedIntoAFullQueueAsThePeerTurnsOutGoneCompletesFlushed() throws IOException
    {
        final QueuePair queuePair = connectRawPeer();
        for (int i = 0; i < 8; i++) // the queue pair's send queue: 8 requests, none acknowledged
        {
            write(queuePair, i);
            assertEquals(i, readFrame());
        }
        peer.close();
        // The post finds the queue full and makes progress; once the peer's FIN is in, that progress
        // finds the peer gone.
        final long deadline = System.nanoTime() + WAIT_NS;
        int result;
        while ((result = queuePair.postWrite(99, local.region(), 0, 8, 0x1000, 77, SendFlags.SIGNALED)) ==
            PostResult.QUEUE_FULL && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertEquals(PostResult.OK, result, PostResult.name(result));
        awaitCompletion(99);
        assertEquals(CompletionStatus.WR_FLUSH_ERROR, completions.get(99L));
        assertEquals(QueuePairState.ERROR, queuePair.state());
        assertTrue(counter(DeviceCounters.PEERS_LOST) >= 1);
    }

    @Test
    void aPeerThatKeepsSendingButNeverAnswersOurRequestsIsLostAfterThePeerTimeout() throws Exception
    {
        final QueuePair queuePair = oneWriteSent(connectRawPeer(1_000));
        final ByteBuffer request = ByteBuffer.allocate(SocketFrame.HEADER_LENGTH + 8);
        final long deadline = System.nanoTime() + WAIT_NS;
        long sequence = 0;
        while (!completions.containsKey(1L) && System.nanoTime() < deadline)
        {
            // Its own WRITEs into our region, every 20 ms: the connection is busy, our request unanswered.
            SocketFrame.writeRequest(new UnsafeBuffer(request), 0, SocketFrame.OPCODE_WRITE, false, sequence++,
                local.region().address(), local.region().rkey(), 0, 8);
            request.clear();
            while (request.hasRemaining())
            {
                peer.write(request);
            }
            final long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
            while (System.nanoTime() < until)
            {
                poll();
            }
        }
        assertEquals(CompletionStatus.RETRY_EXCEEDED, completions.get(1L), "completions " + completions);
        assertTrue(sequence >= 10, "the peer kept writing through the timeout: " + sequence + " writes");
        assertEquals(1, counter(DeviceCounters.PEERS_LOST));
    }

    @Test
    void aSendIntoAReceiveWhoseRegionWasDeregisteredWritesNothingAndFailsTheReceive() throws IOException
    {
        final QueuePair queuePair = connectRawPeer();
        final AtomicBuffer memory = local.region().buffer();
        assertEquals(PostResult.OK, queuePair.postReceive(5, local.region(), 256, 64));
        local.region().close();
        final ByteBuffer frame = ByteBuffer.allocate(SocketFrame.HEADER_LENGTH + 8);
        final UnsafeBuffer view = new UnsafeBuffer(frame);
        SocketFrame.writeRequest(view, 0, SocketFrame.OPCODE_SEND, true, 0, 0, 0, 0, 8);
        view.putLong(SocketFrame.HEADER_LENGTH, 0x5E4D_0000_0000_0002L);
        while (frame.hasRemaining())
        {
            peer.write(frame);
        }
        awaitCompletion(5);
        assertEquals(CompletionStatus.LOCAL_PROTECTION_ERROR, completions.get(5L),
            CompletionStatus.name(completions.get(5L)));
        assertEquals(0, memory.getLong(256), "nothing written into memory no longer registered");
        assertEquals(QueuePairState.ERROR, queuePair.state());
    }

    @Test
    void whileThePeerReadsNothingCanPostSendsSaysNoBeforeTheStagingBufferIsFull() throws IOException
    {
        final QueuePair queuePair = connectRawPeer(10_000, 4096);
        final int length = 1 << 20;
        final MemoryRegion large = local.domain().allocateRegion(length, Access.LOCAL_WRITE);
        int posted = 0;
        while (queuePair.canPostSends(1, length))
        {
            final int result = queuePair.postWrite(posted, large, 0, length, 0x1000, 77, SendFlags.NONE);
            assertEquals(PostResult.OK, result, "post " + posted + " after canPostSends said yes: " +
                PostResult.name(result));
            posted++;
        }
        assertTrue(posted >= 1 && posted < 8, "the staging buffer (4 MiB), not the send queue (8), stopped the " +
            "posts: " + posted);
        assertEquals(QueuePairState.READY_TO_SEND, queuePair.state());
    }

    @Test
    void aRequestRefusedForItsLocalRangeCompletesAfterTheRequestsPostedBeforeIt() throws IOException
    {
        final QueuePair queuePair = oneWriteSent(connectRawPeer());
        assertEquals(PostResult.OK, queuePair.postWrite(2, local.region(), local.region().length(), 8, 0x1000, 77,
            SendFlags.SIGNALED), "a range past the region's end is the NIC's to fail, at post here");
        assertEquals(PostResult.OK, queuePair.postReceive(3, local.region(), 0, 64));
        final List<Long> order = new ArrayList<>();
        final List<Integer> statuses = new ArrayList<>();
        final long deadline = System.nanoTime() + WAIT_NS;
        while (order.size() < 3 && System.nanoTime() < deadline)
        {
            local.completionQueue().poll((id, opcode, status, length, imm, qpn) ->
            {
                order.add(id);
                statuses.add(status);
            }, 16);
        }
        assertEquals(List.of(1L, 2L, 3L), order, "in the order posted");
        assertEquals(List.of(CompletionStatus.WR_FLUSH_ERROR, CompletionStatus.LOCAL_PROTECTION_ERROR,
            CompletionStatus.WR_FLUSH_ERROR), statuses);
        assertEquals(QueuePairState.ERROR, queuePair.state());
    }

    @Test
    void anAckBehindAPeersSendThatWaitsForAReceiveIsAppliedAtOnce() throws IOException
    {
        final QueuePair queuePair = oneWriteSent(connectRawPeer());
        // The peer's SEND first (no receive posted here yet), then the ACK of our write.
        final ByteBuffer frames = ByteBuffer.allocate(2 * SocketFrame.HEADER_LENGTH + 8);
        final UnsafeBuffer view = new UnsafeBuffer(frames);
        SocketFrame.writeRequest(view, 0, SocketFrame.OPCODE_SEND, true, 0, 0, 0, 0, 8);
        view.putLong(SocketFrame.HEADER_LENGTH, 0x5E4D_0000_0000_0001L);
        SocketFrame.writeAcknowledgement(view, SocketFrame.HEADER_LENGTH + 8, SocketFrame.OPCODE_ACK, 0, 0);
        while (frames.hasRemaining())
        {
            peer.write(frames);
        }
        awaitCompletion(1);
        assertEquals(CompletionStatus.SUCCESS, completions.get(1L), "our write is done, the peer's SEND still waiting");

        assertEquals(PostResult.OK, queuePair.postReceive(2, local.region(), 512, 64));
        awaitCompletion(2);
        assertEquals(CompletionStatus.SUCCESS, completions.get(2L), "the SEND, once it has its receive");
        assertEquals(0x5E4D_0000_0000_0001L, local.region().buffer().getLong(512));
        assertEquals(QueuePairState.READY_TO_SEND, queuePair.state(), "the ACK applied ahead was passed over");
    }
}
