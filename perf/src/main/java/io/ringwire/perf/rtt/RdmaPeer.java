package io.ringwire.perf.rtt;

import io.ringwire.perf.host.SpinningTask;
import io.ringwire.perf.host.WatchedConnection;
import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.SendFlags;

import java.util.concurrent.TimeUnit;

/**
 * One side of an RDMA ping-pong: a device, one registered region, one completion queue for sends
 * and receives, and a queue pair, set up on the control thread and then handed to the spinning
 * thread. The region holds two slots:
 *
 * <pre>
 *   [0, slot)         inbound: the peer's WRITE WITH IMMEDIATE lands here (REMOTE_WRITE)
 *   [slot, 2 * slot)  outbound: the pinger builds its ping here (the source of a non-inline write)
 * </pre>
 *
 * <p>Threading: created, connected and closed on the control thread; used by one spinning thread in
 * between. Close only after that thread stopped polling.
 */
public final class RdmaPeer implements AutoCloseable, WatchedConnection
{
    /** Send queue depth; writes are unsignaled except every {@link #SIGNAL_INTERVAL}th. */
    static final int SEND_QUEUE_DEPTH = 64;
    /** Receive queue depth. */
    static final int RECEIVE_QUEUE_DEPTH = 64;
    /** Receives kept posted; each consumed one is posted again at once. */
    static final int RECEIVES_POSTED = 32;
    /** Completion queue depth: every posted receive plus signaled sends. */
    static final int COMPLETION_QUEUE_DEPTH = 256;
    /**
     * One write in this many is signaled: verbs retires unsignaled send-queue entries only when a
     * later signaled one completes, so a never-signaled queue pair fills up and stalls.
     */
    static final int SIGNAL_INTERVAL = 16;
    /** Completions drained per poll. */
    public static final int POLL_BATCH = 16;
    /** How long a silent peer is tolerated by the transport; at least the benchmark's own timeout. */
    static final long PEER_TIMEOUT_MS = TimeUnit.NANOSECONDS.toMillis(SpinningTask.PEER_SILENCE_TIMEOUT_NS);

    private static final int SLOT_ALIGNMENT = 64;
    /** Regions are whole pages, the unit real hardware pins. */
    private static final int PAGE_SIZE = 4096;

    public final Device device;
    public final MemoryRegion region;
    public final CompletionQueue completionQueue;
    public final QueuePair queuePair;
    final int slotLength;
    public final int messageLength;
    /** {@link SendFlags#INLINE} when the message fits the device's inline limit, else none. */
    private final int inlineFlag;

    private RdmaPeer(final Device device, final int messageLength)
    {
        this.device = device;
        this.messageLength = messageLength;
        if (messageLength > device.maxMessageSize())
        {
            throw new RdmaException("--size " + messageLength + " exceeds the " + device.providerName() +
                " provider's largest message of " + device.maxMessageSize() + " bytes");
        }
        this.slotLength = (messageLength + SLOT_ALIGNMENT - 1) & -SLOT_ALIGNMENT;
        // One domain for the region and the queue pair: verbs lets a queue pair reach only the
        // regions of its own protection domain.
        final ProtectionDomain domain = device.allocateProtectionDomain();
        this.region = domain.allocateRegion(
            (2 * slotLength + PAGE_SIZE - 1) & -PAGE_SIZE, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        this.completionQueue = device.createCompletionQueue(COMPLETION_QUEUE_DEPTH);
        this.queuePair = domain.createQueuePair(new QueuePairConfig(
            completionQueue, completionQueue, SEND_QUEUE_DEPTH, RECEIVE_QUEUE_DEPTH, device.maxInlineData()));
        this.inlineFlag = messageLength <= device.maxInlineData() ? SendFlags.INLINE : SendFlags.NONE;
        queuePair.modifyToInit();
        for (int i = 0; i < RECEIVES_POSTED; i++)
        {
            final int result = queuePair.postReceive(i, region, 0, 0);
            if (result != PostResult.OK)
            {
                throw new RdmaException("posting receive " + i + " on " + device.providerName() + " failed: " +
                    PostResult.name(result));
            }
        }
    }

    /**
     * Opens a device of the provider and prepares the queue pair up to INIT with receives posted.
     * Network providers (socket, roce) bind an ephemeral port of 127.0.0.1, named explicitly: roce
     * needs one IPv4 address (its ICRC covers it), never the wildcard.
     *
     * @param provider      provider name.
     * @param shmDirectory  directory for shm files.
     * @param messageLength bytes per message.
     * @return the peer.
     * @throws RdmaException when the provider is missing or cannot open.
     */
    public static RdmaPeer open(final String provider, final String shmDirectory, final int messageLength)
    {
        final RdmaConfig config = new RdmaConfig().provider(provider).shmDirectory(shmDirectory)
            .bindAddress("127.0.0.1:0").peerTimeoutMs(PEER_TIMEOUT_MS).conclude();
        final Device device = RdmaProviders.open(config);
        try
        {
            return new RdmaPeer(device, messageLength);
        }
        catch (final RuntimeException ex)
        {
            device.close();
            throw ex;
        }
    }

    /**
     * @return what the peer needs to reach this queue pair and write into the inbound slot.
     */
    public RemotePeer describe()
    {
        return new RemotePeer(queuePair.localEndpoint(), region.address() + inboundOffset(), region.rkey(),
            slotLength);
    }

    /**
     * INIT to RTR to RTS towards the peer.
     *
     * @param remote the peer, as it described itself.
     */
    public void connect(final RemotePeer remote)
    {
        if (remote.slotLength() < messageLength)
        {
            throw new RdmaException("the peer's inbound slot holds " + remote.slotLength() + " bytes, fewer than " +
                "the message size " + messageLength + ": both sides must run with the same --size");
        }
        queuePair.modifyToReadyToReceive(remote.endpoint());
        queuePair.modifyToReadyToSend();
    }

    /**
     * @param workRequestId a write's work request id, counting up.
     * @return its send flags: inline when the message fits, signaled once every
     *         {@link #SIGNAL_INTERVAL} writes.
     */
    public int sendFlags(final long workRequestId)
    {
        return inlineFlag |
            ((workRequestId & (SIGNAL_INTERVAL - 1)) == SIGNAL_INTERVAL - 1 ? SendFlags.SIGNALED : SendFlags.NONE);
    }

    /**
     * Posts a consumed receive again, so {@link #RECEIVES_POSTED} stay posted.
     *
     * @param workRequestId the receive's work request id, as its completion carried it.
     * @return the {@link PostResult}.
     */
    public int repostReceive(final long workRequestId)
    {
        return queuePair.postReceive(workRequestId, region, 0, 0);
    }

    /**
     * @param opcode        the completion's opcode.
     * @param workRequestId its work request id.
     * @param status        its status, not SUCCESS.
     * @return why it failed, for a failure message.
     */
    public static String describeFailedCompletion(final int opcode, final long workRequestId, final int status)
    {
        return "completion " + CompletionOpcode.name(opcode) + " of work request " + workRequestId + " failed with " +
            CompletionStatus.name(status);
    }

    /**
     * @param workRequestId the receive's work request id.
     * @param result        the refused post's result.
     * @return why the consumed receive is not posted again, for a failure message.
     */
    public static String describeRefusedRepost(final long workRequestId, final int result)
    {
        return "posting receive " + workRequestId + " again was refused: " + PostResult.name(result);
    }

    @Override
    public String watchDetail()
    {
        return " (queue pair " + queuePair.state() + ")";
    }

    /**
     * @return offset of the inbound slot in the region.
     */
    public int inboundOffset()
    {
        return 0;
    }

    /**
     * @return offset of the outbound slot in the region.
     */
    public int outboundOffset()
    {
        return slotLength;
    }

    @Override
    public void close()
    {
        device.close();
    }
}
