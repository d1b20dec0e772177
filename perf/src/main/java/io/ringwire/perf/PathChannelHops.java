package io.ringwire.perf;

import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.SendFlags;
import org.agrona.CloseHelper;

/**
 * The channel's hops on one thread: a WRITE WITH IMMEDIATE from one queue pair into the other's
 * inbound slot, and the echo back, each receive reposted and the echo posted in the completion
 * handler, as the two-thread ping-pong ({@link RdmaPinger}, {@link RdmaPonger}) does. While a side
 * waits, the other is polled too when it has nothing, so a provider that needs both ends driven
 * (socket adopting its connection, roce's ACKs) progresses.
 *
 * <p>Threading: one thread.
 */
final class PathChannelHops implements PathHops
{
    private static final long HOP_TIMEOUT_NS = 10_000_000_000L;

    private final RdmaPeer pinger;
    private final RdmaPeer ponger;
    private final RemotePeer pingerRemote;
    private final RemotePeer pongerRemote;
    private final CompletionHandler pingerHandler = this::onPingerCompletion;
    private final CompletionHandler pongerHandler = this::onPongerCompletion;

    // This thread only.
    private long idleRounds;
    private long waitStartNs;
    private long pings;
    private long echoes;
    private long posted;
    private String failure;

    private PathChannelHops(final RdmaPeer pinger, final RdmaPeer ponger)
    {
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
        final RdmaPeer pinger = RdmaPeer.open(provider, shmDirectory, size);
        RdmaPeer ponger = null;
        try
        {
            ponger = RdmaPeer.open(provider, shmDirectory, size);
            final PathChannelHops hops = new PathChannelHops(pinger, ponger);
            pinger.connect(hops.pongerRemote);
            ponger.connect(hops.pingerRemote);
            return hops;
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(ponger, pinger);
            throw ex;
        }
    }

    @Override
    public void roundTrips(final long roundTrips)
    {
        for (long i = 0; i < roundTrips; i++)
        {
            pinger.region.buffer().putLong(pinger.outboundOffset() + RttMessage.SEQUENCE_OFFSET, pings);
            post(pinger, pinger.outboundOffset(), pongerRemote, RttMessage.immediateOf(pings));
            idleRounds = 0;
            final long expectedPings = pings + 1;
            while (pings < expectedPings)
            {
                if (ponger.completionQueue.poll(pongerHandler, RdmaPeer.POLL_BATCH) == 0)
                {
                    idle(pinger, pingerHandler, "ping");
                }
                failIfFailed();
            }
            idleRounds = 0;
            final long expectedEchoes = echoes + 1;
            while (echoes < expectedEchoes)
            {
                if (pinger.completionQueue.poll(pingerHandler, RdmaPeer.POLL_BATCH) == 0)
                {
                    idle(ponger, pongerHandler, "echo");
                }
                failIfFailed();
            }
        }
    }

    /** Polls the other side (it may have to progress for this one to) and, now and then, checks the time. */
    private void idle(final RdmaPeer other, final CompletionHandler handler, final String what)
    {
        other.completionQueue.poll(handler, RdmaPeer.POLL_BATCH);
        if (++idleRounds == 1)
        {
            waitStartNs = System.nanoTime();
        }
        else if ((idleRounds & 0x3FF) == 0 && System.nanoTime() - waitStartNs > HOP_TIMEOUT_NS)
        {
            throw new IllegalStateException("perf path: no " + what + " within 10 s over " +
                pinger.device.providerName() + " (pinger " + pinger.queuePair + ", ponger " + ponger.queuePair + ")");
        }
    }

    private void failIfFailed()
    {
        if (null != failure)
        {
            throw new IllegalStateException("perf path over " + pinger.device.providerName() + ": " + failure);
        }
    }

    private void post(final RdmaPeer from, final int offset, final RemotePeer to, final int immediate)
    {
        final int flags = from.inlineFlag |
            ((posted & (RdmaPeer.SIGNAL_INTERVAL - 1)) == RdmaPeer.SIGNAL_INTERVAL - 1 ? SendFlags.SIGNALED : 0);
        final int result = from.queuePair.postWriteWithImmediate(posted, from.region, offset, from.messageLength,
            to.slotAddress(), to.rkey(), immediate, flags);
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
                failure = "completion " + CompletionOpcode.name(opcode) + " of work request " + workRequestId +
                    " failed with " + CompletionStatus.name(status);
            }
            return false;
        }
        if (opcode != CompletionOpcode.RECV_RDMA_WITH_IMM)
        {
            return false; // a signaled write completed: it only retires send-queue entries
        }
        final int result = peer.queuePair.postReceive(workRequestId, peer.region, 0, 0);
        if (result != PostResult.OK && null == failure)
        {
            failure = "posting receive " + workRequestId + " again was refused: " + PostResult.name(result);
        }
        return true;
    }

    @Override
    public void close()
    {
        CloseHelper.quietCloseAll(ponger, pinger);
    }
}
