package io.ringwire.rdma.cm;

import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Test-only queue pair that does no RDMA: it enforces the verbs state machine, records every state it
 * enters and the remote endpoint it was given, and returns a fixed local endpoint. It exists only to
 * observe what the connection manager does to a queue pair. Posting is not supported.
 */
final class RecordingQueuePair implements QueuePair
{
    private final QueuePairEndpoint localEndpoint;
    private final List<QueuePairState> transitions = new CopyOnWriteArrayList<>();
    private volatile QueuePairState state = QueuePairState.RESET;
    private volatile QueuePairEndpoint remoteEndpoint;
    private volatile RuntimeException readyToReceiveFailure;

    RecordingQueuePair(final QueuePairEndpoint localEndpoint)
    {
        this.localEndpoint = localEndpoint;
    }

    /**
     * @return a queue pair already moved to INIT, as the connection manager expects it.
     */
    static RecordingQueuePair inInit(final int queuePairNumber, final int startPsn, final String address)
    {
        final RecordingQueuePair queuePair = new RecordingQueuePair(
            new QueuePairEndpoint(queuePairNumber, startPsn, address, 4096, QueuePairEndpoint.DEFAULT_PARTITION_KEY));
        queuePair.modifyToInit();
        return queuePair;
    }

    /**
     * Makes the next {@link #modifyToReadyToReceive} throw, as a provider does for an unreachable peer.
     */
    void failReadyToReceiveWith(final RuntimeException failure)
    {
        this.readyToReceiveFailure = failure;
    }

    /**
     * @return every state entered, in order, starting with INIT.
     */
    List<QueuePairState> transitions()
    {
        return List.copyOf(transitions);
    }

    QueuePairEndpoint remoteEndpoint()
    {
        return remoteEndpoint;
    }

    @Override
    public int queuePairNumber()
    {
        return localEndpoint.queuePairNumber();
    }

    @Override
    public QueuePairState state()
    {
        return state;
    }

    @Override
    public QueuePairEndpoint localEndpoint()
    {
        return localEndpoint;
    }

    @Override
    public void modifyToInit()
    {
        move(QueuePairState.RESET, QueuePairState.INIT);
    }

    @Override
    public void modifyToReadyToReceive(final QueuePairEndpoint remote)
    {
        final RuntimeException failure = readyToReceiveFailure;
        if (failure != null)
        {
            throw failure;
        }
        move(QueuePairState.INIT, QueuePairState.READY_TO_RECEIVE);
        remoteEndpoint = remote;
    }

    @Override
    public void modifyToReadyToSend()
    {
        move(QueuePairState.READY_TO_RECEIVE, QueuePairState.READY_TO_SEND);
    }

    @Override
    public void modifyToError()
    {
        state = QueuePairState.ERROR;
        transitions.add(QueuePairState.ERROR);
    }

    private void move(final QueuePairState from, final QueuePairState to)
    {
        if (state != from)
        {
            throw new IllegalStateException("queue pair 0x" + Integer.toHexString(queuePairNumber()) + " is in " +
                state + ", expected " + from + " to move to " + to);
        }
        state = to;
        transitions.add(to);
    }

    @Override
    public int postWrite(final long workRequestId, final MemoryRegion local, final int localOffset, final int length,
        final long remoteAddress, final int rkey, final int flags)
    {
        throw new UnsupportedOperationException("RecordingQueuePair only observes the connection manager");
    }

    @Override
    public int postWriteWithImmediate(final long workRequestId, final MemoryRegion local, final int localOffset,
        final int length, final long remoteAddress, final int rkey, final int immediate, final int flags)
    {
        throw new UnsupportedOperationException("RecordingQueuePair only observes the connection manager");
    }

    @Override
    public boolean canPostSends(final int requests, final long bytes)
    {
        throw new UnsupportedOperationException("RecordingQueuePair only observes the connection manager");
    }

    @Override
    public int postSend(final long workRequestId, final MemoryRegion local, final int localOffset, final int length,
        final int flags)
    {
        throw new UnsupportedOperationException("RecordingQueuePair only observes the connection manager");
    }

    @Override
    public int postReceive(final long workRequestId, final MemoryRegion local, final int localOffset, final int length)
    {
        throw new UnsupportedOperationException("RecordingQueuePair only observes the connection manager");
    }

    @Override
    public void close()
    {
    }
}
