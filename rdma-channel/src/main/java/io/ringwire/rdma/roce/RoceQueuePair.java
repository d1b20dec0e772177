package io.ringwire.rdma.roce;

import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.config.EndpointAddress;
import io.ringwire.rdma.soft.ReceiveQueue;
import io.ringwire.rdma.soft.SoftMemoryRegion;
import io.ringwire.rdma.soft.SoftQueuePair;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.net.InetSocketAddress;
import java.util.concurrent.ThreadLocalRandom;

import static io.ringwire.rdma.roce.RoceWire.*;

/**
 * A RoCEv2 reliable-connected queue pair. The state machine, admission checks and flush rules come
 * from {@link SoftQueuePair}; {@link RoceRequester} sends this side's requests and applies the
 * peer's acknowledgements, {@link RoceResponder} executes the peer's requests and decides, with
 * {@link AckCoalescer}, when to acknowledge them, and {@link RoceTransmitter} sends the packets of
 * both. The device's receive path hands each verified packet to {@link #onPacket}.
 *
 * <p>Threading: posts and progress on the device's single owning thread.
 */
final class RoceQueuePair extends SoftQueuePair
{
    private final RoceDevice device;
    private final RoceRequester requester;
    private final RoceResponder responder;
    private long lastPostNs;

    private RoceTransmitter transmitter;
    /**
     * The IPv4 Identification the peer's next datagram should carry (its last one plus one; 0 when
     * it sends ID 0). Read and written by the device's receive path on the owning thread.
     */
    int expectedIpIdentification;
    /**
     * The IPv4 Identification the peer's next datagram carries if its last, unverified one showed
     * the ID it really has; -1 for none. Receive path, owning thread.
     */
    int candidateIpIdentification = -1;
    /** Unverified packets in a row whose solved IDs followed one another. Receive path, owning thread. */
    int resyncRun;
    private int remoteQueuePairNumber;
    /** The peer's IPv4 address as an int; packets from anywhere else are foreign. Owning thread. */
    private int peerAddress;
    /** The UDP port the peer sends from, learnt from its first packet; 0 until then. Owning thread. */
    private int peerSourcePort;
    private int pathMtu;
    private final int partitionKey = QueuePairEndpoint.DEFAULT_PARTITION_KEY;
    /** True while the device's list of queue pairs owing an ACK holds this one; written by the device. */
    boolean acknowledgementListed;

    RoceQueuePair(final RoceDevice device, final int queuePairNumber, final QueuePairConfig config)
    {
        super(device, queuePairNumber, ThreadLocalRandom.current().nextInt(PSN_MASK + 1), config);
        this.device = device;
        this.requester = new RoceRequester(this, sendQueue, counters, startPsn, config.maxInlineData(), device.config());
        this.responder = new RoceResponder(this, device.regions(), device.counters(), device.config().ackDelayNs());
    }

    int partitionKey()
    {
        return partitionKey;
    }

    int pathMtu()
    {
        return pathMtu;
    }

    RoceTransmitter transmitter()
    {
        return transmitter;
    }

    int remoteQueuePairNumber()
    {
        return remoteQueuePairNumber;
    }

    /** @return the PSN this queue pair's next new request packet takes. */
    int nextRequestPsn()
    {
        return requester.nextPsn();
    }

    /** @return the oldest PSN of this queue pair's requests not yet acknowledged (the next one when none is outstanding). */
    int oldestUnacknowledgedPsn()
    {
        return requester.oldestUnacknowledgedPsn();
    }

    /** @return the PSN of the next request from the peer this queue pair executes. */
    int expectedRequestPsn()
    {
        return responder.expectedPsn();
    }

    // ---------------------------------------------------------------- connection

    @Override
    protected void transportConnect(final QueuePairEndpoint remote)
    {
        if ((remote.partitionKey() & 0x7FFF) != (partitionKey & 0x7FFF))
        {
            throw new RdmaException("peer P_Key 0x" + Integer.toHexString(remote.partitionKey()) +
                " does not match ours 0x" + Integer.toHexString(partitionKey));
        }
        final InetSocketAddress peer;
        try
        {
            peer = EndpointAddress.resolve("roce device address", remote.address());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new RdmaException(ex.getMessage(), ex);
        }
        pathMtu = Math.min(mtu, remote.mtu());
        remoteQueuePairNumber = remote.queuePairNumber();
        peerAddress = peer.getAddress().hashCode();
        peerSourcePort = 0;
        expectedIpIdentification = 0;
        candidateIpIdentification = -1;
        resyncRun = 0;
        transmitter = new RoceTransmitter(device.localAddress(), peer,
            RoceWire.sourcePort(queuePairNumber, remoteQueuePairNumber),
            BTH_LENGTH + RETH_LENGTH + IMMDT_LENGTH + pathMtu + 3 + Icrc.LENGTH, device.settings().connectedSend());
        responder.connect(remote.startPsn());
        requester.connect();
    }

    @Override
    protected void transportReadyToSend()
    {
        if (!device.verifiesIntegrity())
        {
            // A device that predicts IP IDs takes its peer to do the same (the same provider, the same
            // privileges): ACKs of nothing yet (the PSN before the peer's first), harmless to any RoCE
            // requester, as many as the peer needs in a row to take up this flow's ID sequence before
            // a packet that matters, such as a NAK that ends the connection and is never resent. Sent
            // at ready-to-send, not before: by then the peer's queue pair is connected too (the
            // connection manager's RTU follows the peer's own ready-to-send), so the ACKs reach a
            // queue pair that knows where they come from.
            for (int i = 0; i < RoceReceiver.RESYNC_RUN; i++)
            {
                sendAcknowledge(addPsn(remote.startPsn(), -1), AETH_ACK | AETH_CREDITS_UNLIMITED, 0);
            }
        }
    }

    // ---------------------------------------------------------------- posting

    @Override
    protected boolean transportCanSend(final int requests, final long bytes)
    {
        return requester.canSend(requests, bytes);
    }

    @Override
    protected int transportPost(final int kind, final long workRequestId, final SoftMemoryRegion local,
        final int localOffset, final int length, final long remoteAddress, final int rkey, final int immediate,
        final int flags)
    {
        if (requester.isFull())
        {
            return PostResult.QUEUE_FULL;
        }
        final long nowNs = System.nanoTime();
        requester.post(kind, workRequestId, local, localOffset, length, remoteAddress, rkey, immediate, flags, nowNs);
        // An ACK owed to the peer goes best right behind this request: the peer reads it after the
        // request, and neither side's next packet waits for it.
        responder.acknowledgeWithAnswer(nowNs, nowNs - lastPostNs);
        lastPostNs = nowNs;
        return PostResult.OK;
    }

    // ---------------------------------------------------------------- acknowledgements

    /**
     * Whether a packet may come from this queue pair's peer: its address, and the source port of
     * the peer's packets (a RoCE stack sends every packet of a queue pair from one port, its flow
     * entropy), or any port while that is not yet known.
     *
     * @param sourceAddress the packet's IPv4 source, as an int.
     * @param sourcePort    its UDP source port.
     * @return false for a packet from anyone else.
     */
    boolean isFromPeer(final int sourceAddress, final int sourcePort)
    {
        return sourceAddress == peerAddress && (0 == peerSourcePort || sourcePort == peerSourcePort);
    }

    /**
     * Applies a verified packet from the peer's address. The first one the requester or responder
     * takes (an ACK that answers something outstanding, a request at the expected PSN) teaches the
     * peer's port: any other process on the peer's host can send a packet with a valid ICRC, but not
     * one that names the PSNs the signed connection messages exchanged, so it cannot claim the port.
     *
     * @param sourcePort the packet's UDP source port.
     */
    void onPacket(final RocePacket packet, final DirectBuffer buffer, final int sourcePort, final long nowNs)
    {
        final QueuePairState current = state();
        if (current != QueuePairState.READY_TO_RECEIVE && current != QueuePairState.READY_TO_SEND)
        {
            counters.increment(DeviceCounters.ERROR_STATE_DROPPED);
            return;
        }
        final boolean taken = packet.opcode() == ACKNOWLEDGE ?
            requester.onAcknowledge(packet, nowNs) : responder.onRequest(packet, buffer, nowNs);
        if (taken && 0 == peerSourcePort)
        {
            peerSourcePort = sourcePort;
        }
    }

    // ---------------------------------------------------------------- progress

    @Override
    public int progress(final long nowNs)
    {
        final int work = device.pollReceive(nowNs);
        if (state() != QueuePairState.READY_TO_SEND)
        {
            return work;
        }
        return work + requester.progress(nowNs);
    }

    // ---------------------------------------------------------------- responder callbacks

    /** Sends an ACKNOWLEDGE packet now. */
    void sendAcknowledge(final int psn, final int syndrome, final int messageSequenceNumber)
    {
        final UnsafeBuffer packet = transmitter.packet();
        final int end = RocePacket.writeAcknowledge(packet, 0, partitionKey, remoteQueuePairNumber, psn, syndrome,
            messageSequenceNumber);
        transmitter.send(end + Icrc.LENGTH);
        counters.increment(DeviceCounters.ACKNOWLEDGEMENTS_SENT);
    }

    /**
     * Called by the device at the start of each progress round while this queue pair owes an ACK.
     *
     * @param nowNs the progress round's time.
     * @return {@link RoceResponder#NO_ACKNOWLEDGEMENT}, {@link RoceResponder#ACKNOWLEDGEMENT_SENT}
     *         or {@link RoceResponder#ACKNOWLEDGEMENT_HELD}.
     */
    int releaseAcknowledgement(final long nowNs)
    {
        final QueuePairState current = state();
        if (current != QueuePairState.READY_TO_RECEIVE && current != QueuePairState.READY_TO_SEND)
        {
            responder.dropAcknowledgement();
            return RoceResponder.NO_ACKNOWLEDGEMENT;
        }
        return responder.releaseAcknowledgement(nowNs);
    }

    /**
     * @return request packets (first transmissions and retransmissions) sent to the peer so far.
     */
    long requestPacketsSent()
    {
        return requester.requestPacketsSent();
    }

    /**
     * @return the responder's current limit of unacknowledged PSNs before an owed ACK goes (tests).
     */
    int acknowledgementLimit()
    {
        return responder.acknowledgementLimit();
    }

    void completionProduced()
    {
        device.completionProduced();
    }

    void acknowledgeLater()
    {
        device.acknowledgeLater(this);
    }

    /**
     * Moves to ERROR on the requester's or the responder's failure.
     */
    void fail()
    {
        enterError();
    }

    /**
     * Completes the requester's oldest request (see {@link SoftQueuePair#completeOldestSend}).
     */
    void completeOldest(final int status, final boolean alwaysSignaled)
    {
        completeOldestSend(status, alwaysSignaled);
    }

    /**
     * @return the posted receives, for the responder.
     */
    ReceiveQueue receives()
    {
        return receiveQueue;
    }

    // ---------------------------------------------------------------- teardown

    @Override
    protected void transportDisconnect()
    {
        responder.completeHeldReceive(CompletionStatus.WR_FLUSH_ERROR);
        requester.stop();
    }

    @Override
    protected void transportClose()
    {
        if (null != transmitter)
        {
            transmitter.close();
        }
        device.removeQueuePair(this);
    }
}
