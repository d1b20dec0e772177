package io.ringwire.perf.rtt;

import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.Pinger;
import io.ringwire.perf.pingpong.RttMessage;
import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePair;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The pinger over an RDMA provider: writes each ping with WRITE WITH IMMEDIATE (inline when it fits,
 * unsignaled except every {@link RdmaPeer#SIGNAL_INTERVAL}th) into the ponger's inbound slot, then
 * busy-polls its completion queue until the echo's RECV_RDMA_WITH_IMM arrives; the echoed bytes are
 * then in its own inbound slot. The round trip ends when its completion handler has the echo, where
 * the messaging pinger's ends too. It is its own completion handler, so polling allocates nothing.
 *
 * <p>Threading: the pinger thread only, after the control thread connected the peer.
 */
public final class RdmaPinger extends Pinger implements CompletionHandler
{
    private static final long STOP_WORK_REQUEST_ID = -1;
    /** Not a completion status: a consumed receive could not be posted again. */
    static final int RECEIVE_REPOST_REFUSED = -100;

    private final RdmaPeer peer;
    private final QueuePair queuePair;
    private final CompletionQueue completionQueue;
    private final MemoryRegion region;
    private final AtomicBuffer buffer;
    private final long remoteSlotAddress;
    private final int rkey;
    private final int messageLength;

    // Written by the completion handler, which runs on the pinger thread inside poll.
    private long echoes;
    private long echoReceivedNs;
    private int lastEchoImmediate;
    private int lastEchoLength;
    private int errorStatus = CompletionStatus.SUCCESS;
    private int errorOpcode;
    private long errorWorkRequestId;

    /**
     * @param peer     this side, connected.
     * @param remote   the ponger's side.
     * @param plan     where the thread runs and how it idles.
     * @param warmup   unrecorded round trips.
     * @param messages recorded round trips.
     */
    RdmaPinger(final RdmaPeer peer, final RemotePeer remote, final ThreadPlan plan,
        final long warmup, final long messages)
    {
        super(plan, peer, warmup, messages);
        this.peer = peer;
        this.queuePair = peer.queuePair;
        this.completionQueue = peer.completionQueue;
        this.region = peer.region;
        this.buffer = peer.region.buffer();
        this.remoteSlotAddress = remote.slotAddress();
        this.rkey = remote.rkey();
        this.messageLength = peer.messageLength;
    }

    @Override
    protected long roundTrip(final long sequence)
    {
        final long sentNs = RttMessage.stamp(buffer, peer.outboundOffset(), sequence);
        final int immediate = RttMessage.immediateOf(sequence);
        if (!post(sequence, immediate, sentNs) || !awaitEcho(immediate, sentNs))
        {
            return FAILED;
        }
        final int inbound = peer.inboundOffset();
        if (!echoMatches(sequence, sentNs, buffer.getLong(inbound + RttMessage.SEQUENCE_OFFSET),
            buffer.getLong(inbound + RttMessage.TIMESTAMP_OFFSET)))
        {
            return FAILED;
        }
        return echoReceivedNs - sentNs;
    }

    @Override
    protected String finish()
    {
        final long nowNs = System.nanoTime();
        if (!post(STOP_WORK_REQUEST_ID, RttMessage.STOP_IMMEDIATE, nowNs) ||
            !awaitEcho(RttMessage.STOP_IMMEDIATE, nowNs))
        {
            return "stopping the ponger: " + failureDetail;
        }
        return null;
    }

    private boolean post(final long workRequestId, final int immediate, final long startNs)
    {
        final int flags = peer.sendFlags(workRequestId);
        int result;
        int fullPolls = 0;
        while ((result = queuePair.postWriteWithImmediate(workRequestId, region, peer.outboundOffset(), messageLength,
            remoteSlotAddress, rkey, immediate, flags)) == PostResult.QUEUE_FULL)
        {
            completionQueue.poll(this, RdmaPeer.POLL_BATCH);
            if (errorStatus != CompletionStatus.SUCCESS)
            {
                return describeError();
            }
            if ((++fullPolls & CLOCK_CHECK_MASK) == 0 && System.nanoTime() - startNs > PEER_SILENCE_TIMEOUT_NS)
            {
                failureDetail = "the send queue stayed full for " + PEER_SILENCE_TIMEOUT_NS / 1_000_000 + " ms";
                return false;
            }
        }
        if (result != PostResult.OK)
        {
            failureDetail = "postWriteWithImmediate refused: " + PostResult.name(result);
            return false;
        }
        return true;
    }

    private boolean awaitEcho(final int immediate, final long startNs)
    {
        final long expectedEchoes = echoes + 1;
        while (echoes < expectedEchoes)
        {
            if (completionQueue.poll(this, RdmaPeer.POLL_BATCH) == 0 && idleWhileWaiting(startNs, "no echo"))
            {
                return false;
            }
            if (errorStatus != CompletionStatus.SUCCESS)
            {
                return describeError();
            }
        }
        if (lastEchoImmediate != immediate || lastEchoLength != messageLength)
        {
            failureDetail = "echo carries immediate " + lastEchoImmediate + " and " + lastEchoLength +
                " bytes, expected " + immediate + " and " + messageLength;
            return false;
        }
        return true;
    }

    private boolean describeError()
    {
        if (errorStatus == RECEIVE_REPOST_REFUSED)
        {
            failureDetail = RdmaPeer.describeRefusedRepost(errorWorkRequestId, errorOpcode);
            return false;
        }
        failureDetail = RdmaPeer.describeFailedCompletion(errorOpcode, errorWorkRequestId, errorStatus);
        return false;
    }

    @Override
    public void onCompletion(final long workRequestId, final int opcode, final int status, final int byteLength,
        final int immediate, final int queuePairNumber)
    {
        if (status != CompletionStatus.SUCCESS)
        {
            recordError(workRequestId, opcode, status);
            return;
        }
        if (opcode == CompletionOpcode.RECV_RDMA_WITH_IMM)
        {
            // The application has the echo now (its bytes are in the inbound slot): the round trip
            // ends here, as the messaging pinger's ends in its handler after the decode.
            echoReceivedNs = System.nanoTime();
            lastEchoImmediate = immediate;
            lastEchoLength = byteLength;
            echoes++;
            final int result = peer.repostReceive(workRequestId);
            if (result != PostResult.OK)
            {
                recordError(workRequestId, result, RECEIVE_REPOST_REFUSED);
            }
        }
        // Completions of the signaled writes only retire send-queue entries: nothing to do.
    }

    private void recordError(final long workRequestId, final int opcode, final int status)
    {
        if (errorStatus == CompletionStatus.SUCCESS)
        {
            errorStatus = status;
            errorOpcode = opcode;
            errorWorkRequestId = workRequestId;
        }
    }
}
