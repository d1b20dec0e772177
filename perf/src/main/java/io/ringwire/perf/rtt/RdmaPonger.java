package io.ringwire.perf.rtt;

import io.ringwire.perf.host.SpinningTask;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.RttMessage;
import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePair;

/**
 * The ponger over an RDMA provider: busy-polls its completion queue and, for each
 * RECV_RDMA_WITH_IMM, writes the bytes that just landed in its inbound slot back into the pinger's
 * inbound slot with the same length and immediate (WRITE WITH IMMEDIATE, inline when it fits).
 * Ends after echoing {@link RttMessage#STOP_IMMEDIATE}.
 *
 * <p>The handler posts the echo at once, as an application answers in its completion handler; only
 * when the send queue is full does it leave the echo to the loop, which posts it after {@code poll}
 * returns and polls again to drain the queue (a handler must not poll its own queue).
 *
 * <p>Threading: the ponger thread only, after the control thread connected the peer.
 */
public final class RdmaPonger extends SpinningTask implements CompletionHandler
{
    private final RdmaPeer peer;
    private final QueuePair queuePair;
    private final CompletionQueue completionQueue;
    private final MemoryRegion region;
    private final long remoteSlotAddress;
    private final int rkey;

    // Written by the completion handler (inside poll) and the loop, both on the ponger thread.
    private long received;
    private long echoed;
    private boolean echoPending;
    private int pendingImmediate;
    private int pendingLength;
    private boolean stopReceived;
    private String error;
    private final long warmup;

    /**
     * @param peer   this side, connected.
     * @param remote the pinger's side.
     * @param plan   where the thread runs and how it idles.
     * @param warmup the pinger's unrecorded round trips: its measured window opens at the ping
     *               after them, and this ponger's with it.
     */
    RdmaPonger(final RdmaPeer peer, final RemotePeer remote, final ThreadPlan plan, final long warmup)
    {
        super("ponger", plan, peer);
        this.warmup = warmup;
        this.peer = peer;
        this.queuePair = peer.queuePair;
        this.completionQueue = peer.completionQueue;
        this.region = peer.region;
        this.remoteSlotAddress = remote.slotAddress();
        this.rkey = remote.rkey();
    }

    @Override
    protected String runLoop()
    {
        while (true)
        {
            if (completionQueue.poll(this, RdmaPeer.POLL_BATCH) == 0 && idleTooLong(received, "message"))
            {
                return idleFailure();
            }
            if (null != error)
            {
                return error;
            }
            if (echoPending)
            {
                final String failure = echo();
                if (null != failure)
                {
                    return failure;
                }
            }
            if (stopReceived && !echoPending)
            {
                return null;
            }
        }
    }

    private String echo()
    {
        int result;
        int fullPolls = 0;
        long fullSinceNs = 0;
        while ((result = postEcho()) == PostResult.QUEUE_FULL)
        {
            // Only completions of earlier echoes can come now (the pinger waits for this one), and
            // they retire send-queue entries.
            completionQueue.poll(this, RdmaPeer.POLL_BATCH);
            if (null != error)
            {
                return error;
            }
            if ((++fullPolls & CLOCK_CHECK_MASK) == 0)
            {
                final long nowNs = System.nanoTime();
                if (0 == fullSinceNs)
                {
                    fullSinceNs = nowNs;
                }
                else if (nowNs - fullSinceNs > PEER_SILENCE_TIMEOUT_NS)
                {
                    return "the send queue stayed full for " + PEER_SILENCE_TIMEOUT_NS / 1_000_000 + " ms";
                }
            }
        }
        if (result != PostResult.OK)
        {
            return "echo of message " + received + " refused: " + PostResult.name(result);
        }
        echoPending = false;
        echoed++;
        return null;
    }

    @Override
    public void onCompletion(final long workRequestId, final int opcode, final int status, final int byteLength,
        final int immediate, final int queuePairNumber)
    {
        if (status != CompletionStatus.SUCCESS)
        {
            if (null == error)
            {
                error = RdmaPeer.describeFailedCompletion(opcode, workRequestId, status);
            }
            return;
        }
        if (opcode != CompletionOpcode.RECV_RDMA_WITH_IMM)
        {
            return; // a signaled echo completed: it only retires send-queue entries
        }
        if (echoPending && null == error)
        {
            error = "a ping arrived before the previous one was echoed: the pinger does not wait for echoes";
        }
        if (received == warmup)
        {
            startMeasuring();
        }
        else if (immediate == RttMessage.STOP_IMMEDIATE)
        {
            stopMeasuring();
        }
        received++;
        pendingImmediate = immediate;
        pendingLength = byteLength;
        stopReceived = immediate == RttMessage.STOP_IMMEDIATE;
        // Answer at once, as an application answers in its handler (the messaging ponger does): only
        // a full send queue leaves the echo to the loop, which can poll to drain it.
        echoPending = postEcho() == PostResult.QUEUE_FULL;
        if (!echoPending)
        {
            echoed++;
        }
        final int result = peer.repostReceive(workRequestId);
        if (result != PostResult.OK && null == error)
        {
            error = RdmaPeer.describeRefusedRepost(workRequestId, result);
        }
    }

    /**
     * Posts the pending echo once.
     *
     * @return the post's result; anything but OK or QUEUE_FULL is recorded as the error.
     */
    private int postEcho()
    {
        final long workRequestId = echoed;
        final int result = queuePair.postWriteWithImmediate(workRequestId, region, peer.inboundOffset(), pendingLength,
            remoteSlotAddress, rkey, pendingImmediate, peer.sendFlags(workRequestId));
        if (result != PostResult.OK && result != PostResult.QUEUE_FULL && null == error)
        {
            error = "echo of message " + received + " refused: " + PostResult.name(result);
        }
        return result;
    }

    /**
     * @return pings echoed so far (read after the ponger thread ended).
     */
    long echoed()
    {
        return echoed;
    }
}
