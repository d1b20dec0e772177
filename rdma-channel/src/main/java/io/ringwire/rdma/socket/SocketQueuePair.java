package io.ringwire.rdma.socket;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.SendFlags;
import io.ringwire.rdma.config.EndpointAddress;
import io.ringwire.rdma.soft.SoftMemoryRegion;
import io.ringwire.rdma.soft.SoftQueuePair;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

import static io.ringwire.rdma.socket.SocketFrame.*;

/**
 * A queue pair over one TCP connection. As requester it frames each work request into a staging
 * buffer and writes it at once (TCP_NODELAY); requests stay outstanding until the responder's
 * cumulative ACK, which is when signaled requests complete. As responder it reads frames during
 * progress, checks each against its device's regions before touching a byte, applies it, produces
 * the receive completion, and NAKs at once or ACKs in the next progress round, after the application
 * has seen the completions (see {@link #acknowledgementDue()}).
 *
 * <p>Who connects: of the two queue pairs, the one whose (device address, queue pair number) sorts
 * lower connects to the other's device listener and sends a hello naming both queue pair numbers;
 * the other adopts that connection during progress. Until then, posts are staged.
 *
 * <p>Threading: modify calls on the control thread; posts and progress on the owning thread.
 * Steady state allocates nothing: the staging and receive buffers are allocated once.
 */
final class SocketQueuePair extends SoftQueuePair
{
    /** {@link #adoptIncoming} result: the connection is this queue pair's now. */
    static final int ADOPTED = 0;
    /** {@link #adoptIncoming} result: not at RTR yet; the device keeps the connection for later. */
    static final int NOT_YET = 1;
    /** {@link #adoptIncoming} result: not for this queue pair (close it). */
    static final int REFUSED = 2;

    private static final int NOT_CONNECTED = 0;
    private static final int CONNECTED = 1;

    private static final int APPLIED = 0;
    private static final int STALLED = 1;
    private static final int STOPPED = 2;

    private final SocketDevice device;
    private final long peerTimeoutNs;
    private final ByteBuffer sendBuffer;
    private final UnsafeBuffer sendView;
    private final ByteBuffer receiveBuffer;
    private final UnsafeBuffer receiveView;

    // Requester: outstanding requests, indexed by sequence modulo the send queue depth.
    private final long[] outstandingWorkRequestIds;
    private final int[] outstandingOpcodes;
    private final int[] outstandingLengths;
    private final boolean[] outstandingSignaled;
    private final int ackRequestInterval;
    private long nextSequence;
    private long completedSequence = -1;
    private int requestsSinceAckRequest;
    private long timerStartNs;

    // Responder.
    private long expectedSequence;
    private long lastExecutedSequence = -1;
    /** The last sequence an ACK of ours covered. */
    private long acknowledgedSequence = -1;
    /** A request executed here asked for an ACK (AckReq). */
    private boolean ackOwed;
    /** This queue pair wrote a frame to the peer after the last request it executed. */
    private boolean sentSinceLastExecuted;
    /** When the oldest executed request no ACK has covered yet was executed. */
    private long firstUnacknowledgedExecutedNs;
    /** The time of the progress round under way. */
    private long roundNs;

    private int sendWritePosition;
    private int sendFlushPosition;
    private int receiveParsePosition;
    private int receiveLimit;

    private SocketChannel channel;
    private int connectionState = NOT_CONNECTED;
    private boolean awaitingIncoming;
    private int expectedSourceQpn;
    private long connectStartNs;
    private volatile SocketChannel adoptedChannel;

    SocketQueuePair(final SocketDevice device, final int queuePairNumber, final QueuePairConfig config)
    {
        super(device, queuePairNumber, randomPsn(), config);
        this.device = device;
        this.peerTimeoutNs = device.config().peerTimeoutNs();
        this.sendBuffer = ByteBuffer.allocateDirect(device.sendStagingCapacity());
        this.sendView = new UnsafeBuffer(sendBuffer);
        this.receiveBuffer = ByteBuffer.allocateDirect(device.sendStagingCapacity());
        this.receiveView = new UnsafeBuffer(receiveBuffer);
        final int depth = config.maxSendRequests();
        this.outstandingWorkRequestIds = new long[depth];
        this.outstandingOpcodes = new int[depth];
        this.outstandingLengths = new int[depth];
        this.outstandingSignaled = new boolean[depth];
        this.ackRequestInterval = Math.max(1, depth / 4);
    }

    private static int randomPsn()
    {
        return java.util.concurrent.ThreadLocalRandom.current().nextInt(QueuePairEndpoint.MASK_24 + 1);
    }

    // ---------------------------------------------------------------- connection setup (control thread)

    @Override
    protected void transportConnect(final QueuePairEndpoint remote)
    {
        int order = deviceAddress.compareTo(remote.address());
        if (order == 0)
        {
            order = Integer.compare(queuePairNumber, remote.queuePairNumber());
        }
        connectStartNs = System.nanoTime();
        if (order < 0)
        {
            connectTo(remote);
        }
        else
        {
            expectedSourceQpn = remote.queuePairNumber();
            awaitingIncoming = true;
        }
    }

    private void connectTo(final QueuePairEndpoint remote)
    {
        final InetSocketAddress peer;
        try
        {
            peer = EndpointAddress.resolve("socket device address", remote.address());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new RdmaException(ex.getMessage(), ex);
        }
        SocketChannel connecting = null;
        try
        {
            connecting = SocketChannel.open();
            connecting.setOption(StandardSocketOptions.TCP_NODELAY, true);
            connecting.socket().connect(peer, (int)Math.max(1, peerTimeoutNs / 1_000_000));
            final ByteBuffer hello = ByteBuffer.allocate(HELLO_LENGTH).order(ORDER);
            hello.putInt(HELLO_MAGIC_OFFSET, HELLO_MAGIC)
                .putInt(HELLO_DESTINATION_QPN_OFFSET, remote.queuePairNumber())
                .putInt(HELLO_SOURCE_QPN_OFFSET, queuePairNumber);
            while (hello.hasRemaining())
            {
                connecting.write(hello);
            }
            connecting.configureBlocking(false);
            channel = connecting;
            connectionState = CONNECTED;
            timerStartNs = System.nanoTime();
        }
        catch (final IOException ex)
        {
            CloseHelper.quietClose(connecting);
            throw new RdmaException("queue pair 0x" + Integer.toHexString(queuePairNumber) +
                " cannot connect to its peer's socket device at " + remote.address() + " (" + ex.getMessage() +
                "): is the peer process running and reachable?", ex);
        }
    }


    /**
     * Offered an accepted connection by the device. Any thread.
     *
     * @param incoming  the accepted channel, hello consumed.
     * @param sourceQpn the queue pair number its hello names as sender.
     * @return {@link #ADOPTED}, {@link #NOT_YET} (not at RTR: ask again once it is) or {@link #REFUSED}.
     */
    int adoptIncoming(final SocketChannel incoming, final int sourceQpn)
    {
        final QueuePairState current = state();
        if (current == QueuePairState.RESET || current == QueuePairState.INIT)
        {
            return NOT_YET;
        }
        if (!awaitingIncoming || sourceQpn != expectedSourceQpn || null != adoptedChannel ||
            current == QueuePairState.ERROR)
        {
            return REFUSED;
        }
        adoptedChannel = incoming;
        return ADOPTED;
    }

    // ---------------------------------------------------------------- requester

    @Override
    protected int outstandingSends()
    {
        return (int)(nextSequence - 1 - completedSequence);
    }

    @Override
    protected int transportPost(final int kind, final long workRequestId, final SoftMemoryRegion local,
        final int localOffset, final int length, final long remoteAddress, final int rkey, final int immediate,
        final int flags)
    {
        final int frameLength = HEADER_LENGTH + length;
        if (!reserveSendSpace(frameLength))
        {
            return PostResult.QUEUE_FULL;
        }
        final boolean signaled = SendFlags.isSignaled(flags);
        final int outstanding = outstandingSends();
        final boolean ackRequested = signaled || ++requestsSinceAckRequest >= ackRequestInterval ||
            outstanding + 1 >= (config.maxSendRequests() + 1) / 2;
        if (ackRequested)
        {
            requestsSinceAckRequest = 0;
        }
        final byte opcode = kind == KIND_WRITE ? OPCODE_WRITE :
            kind == KIND_WRITE_WITH_IMMEDIATE ? OPCODE_WRITE_WITH_IMMEDIATE : OPCODE_SEND;

        final int frame = sendWritePosition;
        sendView.putInt(frame + FRAME_LENGTH_OFFSET, frameLength, ORDER);
        sendView.putByte(frame + OPCODE_OFFSET, opcode);
        sendView.putByte(frame + FLAGS_OFFSET, ackRequested ? FLAG_ACK_REQUESTED : 0);
        sendView.putShort(frame + FLAGS_OFFSET + 1, (short)0);
        sendView.putLong(frame + SEQUENCE_OFFSET, nextSequence, ORDER);
        sendView.putLong(frame + REMOTE_ADDRESS_OFFSET, remoteAddress, ORDER);
        sendView.putInt(frame + RKEY_OFFSET, rkey, ORDER);
        sendView.putInt(frame + IMMEDIATE_OFFSET, immediate, ORDER);
        sendView.putInt(frame + PAYLOAD_LENGTH_OFFSET, length, ORDER);
        sendView.putInt(frame + PAYLOAD_LENGTH_OFFSET + 4, 0, ORDER);
        if (length > 0)
        {
            sendView.putBytes(frame + HEADER_LENGTH, local.buffer(), localOffset, length);
        }
        sendWritePosition += frameLength;
        sentSinceLastExecuted = true; // its TCP segment acknowledges what this side has read

        final int index = (int)(nextSequence % outstandingWorkRequestIds.length);
        outstandingWorkRequestIds[index] = workRequestId;
        outstandingOpcodes[index] = completionOpcode(kind);
        outstandingLengths[index] = length;
        outstandingSignaled[index] = signaled;
        if (outstanding == 0)
        {
            timerStartNs = System.nanoTime();
        }
        nextSequence++;
        counters.increment(DeviceCounters.REQUESTS_SENT);
        flushSend();
        return PostResult.OK;
    }

    private boolean reserveSendSpace(final int frameLength)
    {
        if (sendView.capacity() - sendWritePosition >= frameLength)
        {
            return true;
        }
        flushSend();
        if (sendFlushPosition > 0)
        {
            sendBuffer.limit(sendWritePosition).position(sendFlushPosition);
            sendBuffer.compact();
            sendWritePosition -= sendFlushPosition;
            sendFlushPosition = 0;
        }
        return sendView.capacity() - sendWritePosition >= frameLength;
    }

    /** Writes staged bytes without blocking. */
    private int flushSend()
    {
        if (connectionState != CONNECTED || sendWritePosition == sendFlushPosition)
        {
            return 0;
        }
        try
        {
            sendBuffer.limit(sendWritePosition).position(sendFlushPosition);
            final int written = channel.write(sendBuffer);
            sendFlushPosition += written;
            if (sendFlushPosition == sendWritePosition)
            {
                sendFlushPosition = 0;
                sendWritePosition = 0;
            }
            return written > 0 ? 1 : 0;
        }
        catch (final IOException ex)
        {
            peerLost();
            return 1;
        }
    }

    private void completeUpTo(final long sequence)
    {
        final long last = Math.min(sequence, nextSequence - 1);
        while (completedSequence < last)
        {
            final int index = (int)(++completedSequence % outstandingWorkRequestIds.length);
            completeSend(outstandingWorkRequestIds[index], outstandingOpcodes[index], CompletionStatus.SUCCESS,
                outstandingLengths[index], outstandingSignaled[index]);
        }
    }

    private void failOldestOutstanding(final int status)
    {
        if (completedSequence < nextSequence - 1)
        {
            final int index = (int)(++completedSequence % outstandingWorkRequestIds.length);
            completeSend(outstandingWorkRequestIds[index], outstandingOpcodes[index], status,
                outstandingLengths[index], true);
        }
    }

    private void peerLost()
    {
        if (state() == QueuePairState.ERROR)
        {
            return;
        }
        counters.increment(DeviceCounters.PEERS_LOST);
        failOldestOutstanding(CompletionStatus.RETRY_EXCEEDED);
        enterError();
    }

    // ---------------------------------------------------------------- progress

    @Override
    public int progress(final long nowNs)
    {
        final QueuePairState current = state();
        if (current == QueuePairState.ERROR || current == QueuePairState.RESET || current == QueuePairState.INIT)
        {
            return 0;
        }
        if (connectionState != CONNECTED && !adoptConnection(nowNs))
        {
            return 0;
        }
        roundNs = nowNs;
        int work = flushSend();
        if (acknowledgementDue(nowNs))
        {
            appendAcknowledgement(OPCODE_ACK, lastExecutedSequence, 0);
            work += flushSend();
        }
        work += receive();
        if (outstandingSends() > 0 && nowNs - timerStartNs > peerTimeoutNs && state() != QueuePairState.ERROR)
        {
            peerLost();
        }
        return work;
    }

    /**
     * Whether an ACK goes now, at the start of a progress round: the requests it covers were executed
     * in an earlier round, so the application has had their completions and sent its answer, and the
     * ACK never delays that answer. It goes when a request asked for one (AckReq), and also when this
     * queue pair wrote nothing to the peer since its last executed request: on such a one-way
     * connection (a messaging subscriber's, whose answers leave through another queue pair) the
     * kernel would otherwise acknowledge the requests' TCP segments itself, with a pure ACK sent
     * from our read of the next request, on that request's path (Linux acknowledges at once a read
     * that drains small pushed segments on a connection that does not look interactive). Riding on
     * this frame, the TCP acknowledgement costs the next request nothing, and the connection looks
     * interactive. Where this queue pair answers on the same connection (a ping-pong over one queue
     * pair), the answer carries the TCP acknowledgement and no ACK frame is sent unless asked for.
     *
     * <p>Whatever was asked, executed requests are acknowledged within a quarter of the peer timeout:
     * the requester's timer runs on ACKs, and a requester that asks for one only every few requests
     * would otherwise declare a live but slow peer lost (a JVM warming up in an emulated guest took
     * longer than the peer timeout for its first sixteen echoes).
     *
     * @param nowNs the progress round's time.
     */
    private boolean acknowledgementDue(final long nowNs)
    {
        return lastExecutedSequence != acknowledgedSequence && state() != QueuePairState.ERROR &&
            (ackOwed || !sentSinceLastExecuted || nowNs - firstUnacknowledgedExecutedNs > peerTimeoutNs / 4);
    }

    private boolean adoptConnection(final long nowNs)
    {
        if (!awaitingIncoming)
        {
            return false;
        }
        SocketChannel incoming = adoptedChannel;
        if (null == incoming)
        {
            device.pollIncoming(nowNs);
            incoming = adoptedChannel;
        }
        if (null == incoming)
        {
            if (nowNs - connectStartNs > peerTimeoutNs && outstandingSends() > 0)
            {
                peerLost();
            }
            return false;
        }
        channel = incoming;
        connectionState = CONNECTED;
        timerStartNs = nowNs;
        return true;
    }

    private int receive()
    {
        int bytesRead = 0;
        if (receiveLimit < receiveView.capacity())
        {
            try
            {
                receiveBuffer.limit(receiveView.capacity()).position(receiveLimit);
                bytesRead = channel.read(receiveBuffer);
            }
            catch (final IOException ex)
            {
                bytesRead = -1;
            }
            if (bytesRead < 0)
            {
                applyFrames();
                peerLost();
                return 1;
            }
            receiveLimit += bytesRead;
            if (bytesRead > 0)
            {
                timerStartNs = System.nanoTime();
            }
        }
        final int applied = applyFrames();
        return applied + (bytesRead > 0 ? 1 : 0);
    }

    private int applyFrames()
    {
        int applied = 0;
        boolean pendingFrameDoesNotFit = false;
        while (receiveLimit - receiveParsePosition >= HEADER_LENGTH && state() != QueuePairState.ERROR)
        {
            final int frame = receiveParsePosition;
            final int frameLength = receiveView.getInt(frame + FRAME_LENGTH_OFFSET, ORDER);
            final int payloadLength = receiveView.getInt(frame + PAYLOAD_LENGTH_OFFSET, ORDER);
            if (frameLength < HEADER_LENGTH || frameLength > receiveView.capacity() ||
                payloadLength != frameLength - HEADER_LENGTH)
            {
                protocolError(receiveView.getLong(frame + SEQUENCE_OFFSET, ORDER));
                break;
            }
            if (receiveLimit - frame < frameLength)
            {
                // A frame that cannot complete where it starts needs the buffer compacted first.
                pendingFrameDoesNotFit = frame + frameLength > receiveView.capacity();
                break;
            }
            final int outcome = applyFrame(frame, payloadLength);
            if (outcome == STALLED)
            {
                break;
            }
            receiveParsePosition += frameLength;
            applied++;
            if (outcome == STOPPED)
            {
                break;
            }
        }
        if (receiveParsePosition == receiveLimit)
        {
            receiveParsePosition = 0;
            receiveLimit = 0;
        }
        else if (receiveParsePosition > 0 && (pendingFrameDoesNotFit || receiveParsePosition > receiveView.capacity() / 2))
        {
            receiveBuffer.limit(receiveLimit).position(receiveParsePosition);
            receiveBuffer.compact();
            receiveLimit -= receiveParsePosition;
            receiveParsePosition = 0;
        }
        return applied;
    }

    private int applyFrame(final int frame, final int payloadLength)
    {
        final byte opcode = receiveView.getByte(frame + OPCODE_OFFSET);
        final long sequence = receiveView.getLong(frame + SEQUENCE_OFFSET, ORDER);
        switch (opcode)
        {
            case OPCODE_ACK:
                completeUpTo(sequence);
                return APPLIED;

            case OPCODE_NAK:
                completeUpTo(sequence - 1);
                failOldestOutstanding(receiveView.getInt(frame + IMMEDIATE_OFFSET, ORDER));
                enterError();
                return STOPPED;

            case OPCODE_WRITE:
            case OPCODE_WRITE_WITH_IMMEDIATE:
            case OPCODE_SEND:
                if (sequence != expectedSequence)
                {
                    protocolError(sequence);
                    return STOPPED;
                }
                if (opcode != OPCODE_WRITE && receiveQueue.isEmpty())
                {
                    return STALLED; // receiver not ready: the request waits for a posted receive
                }
                final int outcome = opcode == OPCODE_SEND ?
                    applySend(frame, payloadLength, sequence) : applyWrite(frame, payloadLength, sequence, opcode);
                if (outcome == APPLIED)
                {
                    if (lastExecutedSequence == acknowledgedSequence)
                    {
                        firstUnacknowledgedExecutedNs = roundNs; // the first not yet acknowledged
                    }
                    expectedSequence++;
                    lastExecutedSequence = sequence;
                    sentSinceLastExecuted = false;
                    counters.increment(DeviceCounters.REQUESTS_EXECUTED);
                    if ((receiveView.getByte(frame + FLAGS_OFFSET) & FLAG_ACK_REQUESTED) != 0)
                    {
                        ackOwed = true;
                    }
                }
                return outcome;

            default:
                protocolError(sequence);
                return STOPPED;
        }
    }

    private int applyWrite(final int frame, final int payloadLength, final long sequence, final byte opcode)
    {
        final int rkey = receiveView.getInt(frame + RKEY_OFFSET, ORDER);
        final long remoteAddress = receiveView.getLong(frame + REMOTE_ADDRESS_OFFSET, ORDER);
        final long offset = regions.checkRemoteAccess(rkey, remoteAddress, payloadLength, Access.REMOTE_WRITE,
            protectionDomainId());
        if (offset < 0)
        {
            refuse(sequence, CompletionStatus.REMOTE_ACCESS_ERROR);
            return STOPPED;
        }
        final SoftMemoryRegion target = regions.byKey(rkey);
        if (payloadLength > 0)
        {
            target.buffer().putBytes((int)offset, receiveView, frame + HEADER_LENGTH, payloadLength);
        }
        if (opcode == OPCODE_WRITE_WITH_IMMEDIATE)
        {
            final long workRequestId = receiveQueue.headWorkRequestId();
            receiveQueue.removeHead();
            receiveCompletionQueue.push(workRequestId, CompletionOpcode.RECV_RDMA_WITH_IMM, CompletionStatus.SUCCESS,
                payloadLength, receiveView.getInt(frame + IMMEDIATE_OFFSET, ORDER), queuePairNumber);
        }
        return APPLIED;
    }

    private int applySend(final int frame, final int payloadLength, final long sequence)
    {
        final long workRequestId = receiveQueue.headWorkRequestId();
        final MemoryRegion target = receiveQueue.headRegion();
        final int targetOffset = receiveQueue.headOffset();
        final int capacity = receiveQueue.headLength();
        receiveQueue.removeHead();
        if (payloadLength > capacity)
        {
            counters.increment(DeviceCounters.RESPONDER_LENGTH_ERROR);
            receiveCompletionQueue.push(workRequestId, CompletionOpcode.RECV, CompletionStatus.LOCAL_LENGTH_ERROR,
                payloadLength, 0, queuePairNumber);
            refuse(sequence, CompletionStatus.REMOTE_INVALID_REQUEST);
            return STOPPED;
        }
        if (payloadLength > 0)
        {
            target.buffer().putBytes(targetOffset, receiveView, frame + HEADER_LENGTH, payloadLength);
        }
        receiveCompletionQueue.push(workRequestId, CompletionOpcode.RECV, CompletionStatus.SUCCESS, payloadLength, 0,
            queuePairNumber);
        return APPLIED;
    }

    private void protocolError(final long sequence)
    {
        counters.increment(DeviceCounters.RESPONDER_MALFORMED);
        refuse(sequence, CompletionStatus.REMOTE_INVALID_REQUEST);
    }

    /** NAKs a request (the requester completes everything before it as done), then moves to ERROR. */
    private void refuse(final long sequence, final int status)
    {
        appendAcknowledgement(OPCODE_NAK, sequence, status);
        enterError();
    }

    private void appendAcknowledgement(final byte opcode, final long sequence, final int status)
    {
        if (!reserveSendSpace(HEADER_LENGTH))
        {
            return; // keep ackOwed: the next progress retries
        }
        final int frame = sendWritePosition;
        sendView.setMemory(frame, HEADER_LENGTH, (byte)0);
        sendView.putInt(frame + FRAME_LENGTH_OFFSET, HEADER_LENGTH, ORDER);
        sendView.putByte(frame + OPCODE_OFFSET, opcode);
        sendView.putLong(frame + SEQUENCE_OFFSET, sequence, ORDER);
        sendView.putInt(frame + IMMEDIATE_OFFSET, status, ORDER);
        sendWritePosition += HEADER_LENGTH;
        sentSinceLastExecuted = true;
        counters.increment(DeviceCounters.ACKNOWLEDGEMENTS_SENT);
        if (opcode == OPCODE_ACK)
        {
            ackOwed = false;
            acknowledgedSequence = sequence;
        }
    }

    // ---------------------------------------------------------------- teardown

    @Override
    protected void transportFlushAndDisconnect()
    {
        if (connectionState == CONNECTED)
        {
            // Best effort: a NAK or final ACK staged just before the error should reach the peer.
            for (int i = 0; i < 16 && sendWritePosition != sendFlushPosition; i++)
            {
                try
                {
                    sendBuffer.limit(sendWritePosition).position(sendFlushPosition);
                    sendFlushPosition += channel.write(sendBuffer);
                }
                catch (final IOException ex)
                {
                    break;
                }
            }
        }
        connectionState = NOT_CONNECTED;
        awaitingIncoming = false;
        CloseHelper.quietClose(channel);
        CloseHelper.quietClose(adoptedChannel);
        while (completedSequence < nextSequence - 1)
        {
            final int index = (int)(++completedSequence % outstandingWorkRequestIds.length);
            completeSend(outstandingWorkRequestIds[index], outstandingOpcodes[index], CompletionStatus.WR_FLUSH_ERROR,
                outstandingLengths[index], true);
        }
    }

    @Override
    protected void transportClose()
    {
        device.removeQueuePair(this);
    }
}
