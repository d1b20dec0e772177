package io.ringwire.rdma.socket;

import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.soft.SoftMemoryRegion;
import io.ringwire.rdma.soft.SoftQueuePair;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.channels.SocketChannel;
import java.security.SecureRandom;

import static io.ringwire.rdma.socket.SocketFrame.*;

/**
 * A queue pair over one TCP connection. The state machine, admission checks and flush rules come
 * from {@link SoftQueuePair}; the transport is in parts: {@link SocketConnector} sets the
 * connection up, {@link SocketConnection} stages, writes and reads its bytes,
 * {@link SocketRequester} frames work requests and completes them on the peer's ACKs and NAKs,
 * {@link SocketResponder} executes the peer's requests, and {@link SocketAcknowledger} acknowledges
 * them, deciding when the ACK goes. This class ties them together: each progress round writes what
 * is staged, sends an ACK that is due, reads, and hands each complete frame to the requester or the
 * responder.
 *
 * <p>Threading: modify calls on the control thread; posts and progress on the owning thread.
 * Steady state allocates nothing: the staging and receive buffers are allocated once.
 */
final class SocketQueuePair extends SoftQueuePair
{
    /** Start PSNs prove a hello's negotiation (see {@link SocketFrame}): not to be guessed from others seen. */
    private static final SecureRandom START_PSNS = new SecureRandom();

    private final SocketDevice device;
    private final SocketConnection connection;
    private final SocketConnector connector;
    private final SocketAcknowledger acknowledgements;
    private final SocketRequester requester;
    private final SocketResponder responder;
    /**
     * Bytes from the parse position that {@link #applyAcknowledgementsBehind} has looked at: the
     * frames there marked {@link SocketFrame#OPCODE_APPLIED_AHEAD} are its own marks.
     */
    private int lookedAheadBytes;

    SocketQueuePair(final SocketDevice device, final int queuePairNumber, final QueuePairConfig config)
    {
        super(device, queuePairNumber, START_PSNS.nextInt(QueuePairEndpoint.MASK_24 + 1), config);
        this.device = device;
        final long peerTimeoutNs = device.config().peerTimeoutNs();
        this.connection = new SocketConnection(this, device.sendStagingCapacity());
        this.connector = new SocketConnector(device, this, peerTimeoutNs);
        this.acknowledgements = new SocketAcknowledger(connection, counters, peerTimeoutNs);
        this.requester = new SocketRequester(this, sendQueue, peerTimeoutNs);
        this.responder = new SocketResponder(this, regions, receiveQueue);
    }

    @Override
    protected void transportConnect(final QueuePairEndpoint remote)
    {
        if (connector.connect(deviceAddress, remote))
        {
            requester.restartTimer(System.nanoTime());
        }
    }

    /**
     * Offered a connection the device accepted; see {@link SocketConnector#offer}. Any thread.
     */
    SocketConnector.Offer adoptIncoming(final SocketChannel incoming, final int sourceQpn, final int destinationPsn,
        final int sourcePsn)
    {
        return connector.offer(incoming, sourceQpn, destinationPsn, sourcePsn);
    }

    /** @return what sets up its connection (tests). */
    SocketConnector connector()
    {
        return connector;
    }

    /**
     * @return the first PSN this side sends, which the hello carries as proof of the negotiation.
     */
    int startPsn()
    {
        return startPsn;
    }

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
        return requester.post(kind, workRequestId, local, localOffset, length, remoteAddress, rkey, immediate, flags);
    }

    @Override
    public int progress(final long nowNs)
    {
        final QueuePairState current = state();
        if (current == QueuePairState.ERROR || current == QueuePairState.RESET || current == QueuePairState.INIT)
        {
            return 0;
        }
        if (!connection.isOpen())
        {
            if (!connector.adopt(nowNs))
            {
                return 0;
            }
            requester.restartTimer(nowNs);
        }
        acknowledgements.startRound(nowNs);
        int work = connection.flush();
        if (acknowledgements.isDue(nowNs) && state() != QueuePairState.ERROR)
        {
            acknowledgements.acknowledge();
            work += connection.flush();
        }
        work += receive();
        if (requester.isPeerSilent(nowNs) && state() != QueuePairState.ERROR)
        {
            peerLost();
        }
        return work;
    }

    private int receive()
    {
        final int bytesRead = connection.read();
        if (bytesRead < 0)
        {
            applyFrames();
            peerLost();
            return 1;
        }
        final int applied = applyFrames();
        return applied + (bytesRead > 0 ? 1 : 0);
    }

    private int applyFrames()
    {
        final UnsafeBuffer received = connection.receiveView();
        int applied = 0;
        boolean frameDoesNotFit = false;
        while (connection.received() >= HEADER_LENGTH && state() != QueuePairState.ERROR)
        {
            final int frame = connection.parsePosition();
            final int frameLength = received.getInt(frame + FRAME_LENGTH_OFFSET, ORDER);
            final int payloadLength = received.getInt(frame + PAYLOAD_LENGTH_OFFSET, ORDER);
            if (frameLength < HEADER_LENGTH || frameLength > received.capacity() ||
                payloadLength != frameLength - HEADER_LENGTH)
            {
                responder.protocolError(SocketFrame.sequence(received, frame));
                break;
            }
            if (connection.received() < frameLength)
            {
                // A frame that cannot complete where it starts needs the buffer compacted first.
                frameDoesNotFit = frame + frameLength > received.capacity();
                break;
            }
            if (!applyFrame(received.getByte(frame + OPCODE_OFFSET), frame, payloadLength))
            {
                applyAcknowledgementsBehind(frame + frameLength);
                break;
            }
            connection.consume(frameLength);
            lookedAheadBytes = Math.max(0, lookedAheadBytes - frameLength);
            applied++;
        }
        connection.compactReceived(frameDoesNotFit);
        return applied;
    }

    /**
     * The frame at the parse position is a request waiting for a receive this side has not posted:
     * the peer's requests behind it wait too (they run in order), but the ACKs and NAKs of this
     * side's own requests do not, as on an RC queue pair, where the responder's wait for a receive
     * does not hold the requester's acknowledgements. Each complete one is applied now and marked
     * {@link SocketFrame#OPCODE_APPLIED_AHEAD}; the rest stays for when the request has its
     * receive. Bytes looked at once are not looked at again while the request waits.
     *
     * @param from where the frame after the waiting one starts.
     */
    private void applyAcknowledgementsBehind(final int from)
    {
        final UnsafeBuffer received = connection.receiveView();
        final int end = connection.parsePosition() + connection.received();
        int frame = Math.max(from, connection.parsePosition() + lookedAheadBytes);
        while (end - frame >= HEADER_LENGTH && state() != QueuePairState.ERROR)
        {
            final int frameLength = received.getInt(frame + FRAME_LENGTH_OFFSET, ORDER);
            if (frameLength < HEADER_LENGTH || frameLength > received.capacity() ||
                received.getInt(frame + PAYLOAD_LENGTH_OFFSET, ORDER) != frameLength - HEADER_LENGTH)
            {
                break; // the parse finds it malformed when it gets there
            }
            if (end - frame < frameLength)
            {
                break;
            }
            final byte opcode = received.getByte(frame + OPCODE_OFFSET);
            if (opcode == OPCODE_APPLIED_AHEAD)
            {
                // Not a mark of ours (those lie before what was looked at): the peer sent it.
                responder.protocolError(SocketFrame.sequence(received, frame));
                return;
            }
            if (opcode == OPCODE_ACK || opcode == OPCODE_NAK)
            {
                // Marked first: a completion handler may post, whose progress may move the bytes.
                received.putByte(frame + OPCODE_OFFSET, OPCODE_APPLIED_AHEAD);
                lookedAheadBytes = frame + frameLength - connection.parsePosition();
                applyFrame(opcode, frame, 0);
                if (state() == QueuePairState.ERROR)
                {
                    return;
                }
            }
            frame += frameLength;
        }
        lookedAheadBytes = frame - connection.parsePosition();
    }

    /**
     * Hands a frame to the requester (ACK, NAK) or the responder (requests). A NAK, like any frame
     * the responder refuses, moves the queue pair to ERROR, which ends the reading.
     *
     * @return false when the frame must wait for a posted receive.
     */
    private boolean applyFrame(final byte opcode, final int frame, final int payloadLength)
    {
        final UnsafeBuffer received = connection.receiveView();
        switch (opcode)
        {
            case OPCODE_ACK:
            {
                final long sequence = SocketFrame.sequence(received, frame);
                if (!requester.wasPosted(sequence))
                {
                    ghostAcknowledgement();
                    return true;
                }
                requester.completeThrough(sequence);
                return true;
            }

            case OPCODE_NAK:
            {
                final long sequence = SocketFrame.sequence(received, frame);
                final int status = received.getInt(frame + IMMEDIATE_OFFSET, ORDER);
                if (!requester.isOutstanding(sequence) || !isResponderRefusal(status))
                {
                    ghostAcknowledgement();
                    return true;
                }
                requester.completeThrough(sequence - 1);
                requester.failOldest(status);
                enterError();
                return true;
            }

            case OPCODE_WRITE:
            case OPCODE_WRITE_WITH_IMMEDIATE:
            case OPCODE_SEND:
                return responder.apply(received, opcode, frame, payloadLength);

            case OPCODE_APPLIED_AHEAD:
                if (lookedAheadBytes == 0)
                {
                    responder.protocolError(SocketFrame.sequence(received, frame)); // sent so by the peer
                }
                return true;

            default:
                responder.protocolError(SocketFrame.sequence(received, frame));
                return true;
        }
    }

    /**
     * An ACK or NAK for a request never posted, or a NAK with a status no responder sends: over a
     * reliable stream that is a broken or hostile peer, not a late duplicate. Nothing it names is
     * completed (a NAK of status SUCCESS would complete a refused request as done); the queue pair
     * fails, its requests flushed.
     */
    private void ghostAcknowledgement()
    {
        counters.increment(DeviceCounters.GHOST_ACKNOWLEDGEMENTS);
        counters.increment(DeviceCounters.RESPONDER_MALFORMED);
        enterError();
    }

    private static boolean isResponderRefusal(final int status)
    {
        return status == CompletionStatus.REMOTE_ACCESS_ERROR || status == CompletionStatus.REMOTE_INVALID_REQUEST ||
            status == CompletionStatus.REMOTE_OPERATIONAL_ERROR;
    }

    /**
     * The peer is gone (the connection failed, or it stayed silent for the peer timeout): fails the
     * oldest outstanding request with RETRY_EXCEEDED and moves to ERROR, once.
     */
    void peerLost()
    {
        if (state() == QueuePairState.ERROR)
        {
            return;
        }
        counters.increment(DeviceCounters.PEERS_LOST);
        requester.failOldest(CompletionStatus.RETRY_EXCEEDED);
        enterError();
    }

    /**
     * @return send requests posted and not yet completed.
     */
    int outstandingRequests()
    {
        return outstandingSends();
    }

    /**
     * Completes a request posted as the queue pair entered ERROR (see {@link SoftQueuePair#flushPost}).
     */
    int flushRequest(final int kind, final long workRequestId, final int length)
    {
        return flushPost(kind, workRequestId, length);
    }

    /**
     * Completes the requester's oldest request (see {@link SoftQueuePair#completeOldestSend}).
     */
    void completeOldest(final int status, final boolean alwaysSignaled)
    {
        completeOldestSend(status, alwaysSignaled);
    }

    /**
     * Counts a request the requester sent.
     */
    void countRequestSent()
    {
        counters.increment(DeviceCounters.REQUESTS_SENT);
    }

    /**
     * Moves to ERROR on the responder's refusal.
     */
    void fail()
    {
        enterError();
    }

    SocketConnection connection()
    {
        return connection;
    }

    SocketAcknowledger acknowledgements()
    {
        return acknowledgements;
    }

    DeviceCounters counters()
    {
        return counters;
    }

    @Override
    protected void transportDisconnect()
    {
        connector.close();
    }

    @Override
    protected void transportClose()
    {
        device.removeQueuePair(this);
    }
}
