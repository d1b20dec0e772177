package io.ringwire.perf.path;

import io.ringwire.perf.pingpong.RttMessage;
import io.ringwire.perf.rtt.RdmaPeer;
import io.ringwire.perf.rtt.RdmaPinger;
import io.ringwire.perf.rtt.RdmaPonger;
import io.ringwire.perf.rtt.RemotePeer;
import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.PostResult;

/**
 * The channel's hops on one thread: a WRITE WITH IMMEDIATE from one queue pair into the other's
 * inbound slot, and the echo back, each receive reposted and the echo posted in the completion
 * handler, as the two-thread ping-pong ({@link RdmaPinger}, {@link RdmaPonger}) does.
 *
 * <p>Threading: one thread.
 */
final class PathChannelHops extends PathHops
{
    private final RdmaPeer pinger;
    private final RdmaPeer ponger;
    private final RemotePeer pingerRemote;
    private final RemotePeer pongerRemote;
    private final CompletionHandler pingerHandler = this::onPingerCompletion;
    private final CompletionHandler pongerHandler = this::onPongerCompletion;

    // This thread only.
    private long posted;

    private PathChannelHops(final RdmaPeer pinger, final RdmaPeer ponger)
    {
        super(pinger, ponger);
        this.pinger = pinger;
        this.ponger = ponger;
        this.pingerRemote = pinger.describe();
        this.pongerRemote = ponger.describe();
    }

    /**
     * @param provider     shm, socket or roce.
     * @param shmDirectory the shm provider's directory.
     * @param size         bytes per message.
     * @return both ends, connected.
     */
    static PathChannelHops open(final String provider, final String shmDirectory, final int size)
    {
        return openBoth(() -> RdmaPeer.open(provider, shmDirectory, size), (pinger, ponger) ->
        {
            final PathChannelHops hops = new PathChannelHops(pinger, ponger);
            pinger.connect(hops.pongerRemote);
            ponger.connect(hops.pingerRemote);
            return hops;
        });
    }

    @Override
    protected void sendPing()
    {
        pinger.region.buffer().putLong(pinger.outboundOffset() + RttMessage.SEQUENCE_OFFSET, pings);
        post(pinger, pinger.outboundOffset(), pongerRemote, RttMessage.immediateOf(pings));
    }

    @Override
    protected int pollPonger()
    {
        return ponger.completionQueue.poll(pongerHandler, RdmaPeer.POLL_BATCH);
    }

    @Override
    protected int pollPinger()
    {
        return pinger.completionQueue.poll(pingerHandler, RdmaPeer.POLL_BATCH);
    }

    @Override
    protected String describe()
    {
        return pinger.device.providerName() + " (pinger " + pinger.queuePair + ", ponger " + ponger.queuePair + ")";
    }

    private void post(final RdmaPeer from, final int offset, final RemotePeer to, final int immediate)
    {
        final int result = from.queuePair.postWriteWithImmediate(posted, from.region, offset, from.messageLength,
            to.slotAddress(), to.rkey(), immediate, from.sendFlags(posted));
        posted++;
        if (result != PostResult.OK && null == failure)
        {
            failure = "postWriteWithImmediate refused: " + PostResult.name(result);
        }
    }

    private void onPongerCompletion(final long workRequestId, final int opcode, final int status,
        final int byteLength, final int immediate, final int queuePairNumber)
    {
        if (onCompletion(ponger, workRequestId, opcode, status))
        {
            pings++;
            post(ponger, ponger.inboundOffset(), pingerRemote, immediate);
        }
    }

    private void onPingerCompletion(final long workRequestId, final int opcode, final int status,
        final int byteLength, final int immediate, final int queuePairNumber)
    {
        if (onCompletion(pinger, workRequestId, opcode, status))
        {
            echoes++;
        }
    }

    /** @return true for a successful receive (reposted here). */
    private boolean onCompletion(final RdmaPeer peer, final long workRequestId, final int opcode, final int status)
    {
        if (status != CompletionStatus.SUCCESS)
        {
            if (null == failure)
            {
                failure = RdmaPeer.describeFailedCompletion(opcode, workRequestId, status);
            }
            return false;
        }
        if (opcode != CompletionOpcode.RECV_RDMA_WITH_IMM)
        {
            return false; // a signaled write completed: it only retires send-queue entries
        }
        final int result = peer.repostReceive(workRequestId);
        if (result != PostResult.OK && null == failure)
        {
            failure = RdmaPeer.describeRefusedRepost(workRequestId, result);
        }
        return true;
    }
}
