package io.ringwire.messaging;

import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaException;

/**
 * The queue pair a handshake thread hands to the connection manager, while the thread that polls
 * the queue pair's completion queue keeps driving it. The connection manager moves its queue pair
 * to RTR, then RTS, or to ERROR when the handshake fails. RTR passes through: the remote must be
 * known before the REP leaves, and progress acts on nothing before the state says RTR. RTS and
 * ERROR are recorded here instead and applied by the owning thread: RTS when it adopts the outcome
 * ({@link #applyReadyToSend()}) or when the peer's first message arrives ({@link #establish()}),
 * ERROR by its own close. On the software providers both touch what the
 * polling thread owns (roce sends ACKs at RTS; the flush at ERROR pushes completions), and the
 * completion queue is single-threaded. A queue pair in RTR receives, and a post before RTS is
 * refused with INVALID_STATE and retried, so nothing waits on the deferral but the first credit.
 *
 * <p>{@link #abandon()} (owning thread, before it closes the queue pair) makes a later move to RTR
 * fail, so a queue pair the owner has closed is never connected afterwards.
 */
final class HandshakeQueuePair implements QueuePair
{
    private final QueuePair real;
    /** Guarded by this: set by the owning thread before it closes {@link #real}. */
    private boolean abandoned;
    private volatile boolean readyToSendRequested;
    private volatile boolean errorRequested;

    HandshakeQueuePair(final QueuePair real)
    {
        this.real = real;
    }

    /** @return the queue pair the owning thread drives. */
    QueuePair real()
    {
        return real;
    }

    /**
     * Moves the real queue pair to RTS if the handshake asked for it. Owning thread, after the
     * handshake succeeded.
     *
     * @throws RdmaException when the handshake never asked for RTS, or the move fails.
     */
    void applyReadyToSend()
    {
        if (!readyToSendRequested || errorRequested)
        {
            throw new RdmaException("the handshake did not bring " + real + " to RTS");
        }
        if (real.state() == QueuePairState.READY_TO_RECEIVE)
        {
            real.modifyToReadyToSend();
        }
    }

    /**
     * Moves the real queue pair from RTR to RTS now that the peer has sent on it: a verbs device
     * does the same on the first packet from the active side. Owning thread.
     *
     * @return true when it moved.
     */
    boolean establish()
    {
        if (errorRequested || real.state() != QueuePairState.READY_TO_RECEIVE)
        {
            return false;
        }
        real.modifyToReadyToSend();
        return true;
    }

    /** Makes any later move to RTR fail. Owning thread, before it closes the real queue pair. */
    synchronized void abandon()
    {
        abandoned = true;
    }

    @Override
    public int queuePairNumber()
    {
        return real.queuePairNumber();
    }

    /** @return the state the handshake has asked for (ERROR, RTS), else the real one. */
    @Override
    public QueuePairState state()
    {
        if (errorRequested)
        {
            return QueuePairState.ERROR;
        }
        return readyToSendRequested ? QueuePairState.READY_TO_SEND : real.state();
    }

    @Override
    public QueuePairEndpoint localEndpoint()
    {
        return real.localEndpoint();
    }

    @Override
    public void modifyToInit()
    {
        throw new IllegalStateException("the owning thread moves " + real + " to INIT before the handshake");
    }

    @Override
    public synchronized void modifyToReadyToReceive(final QueuePairEndpoint remote)
    {
        if (abandoned)
        {
            throw new RdmaException(real + " was closed while its handshake ran");
        }
        real.modifyToReadyToReceive(remote);
    }

    @Override
    public void modifyToReadyToSend()
    {
        final QueuePairState current = real.state();
        if (errorRequested || (current != QueuePairState.READY_TO_RECEIVE && current != QueuePairState.READY_TO_SEND))
        {
            throw new IllegalStateException(real + " is " + state() + "; moving to RTS needs READY_TO_RECEIVE");
        }
        readyToSendRequested = true;
    }

    @Override
    public void modifyToError()
    {
        errorRequested = true;
    }

    @Override
    public int postWrite(final long workRequestId, final MemoryRegion local, final int localOffset, final int length,
        final long remoteAddress, final int rkey, final int flags)
    {
        throw ownerOnly();
    }

    @Override
    public int postWriteWithImmediate(final long workRequestId, final MemoryRegion local, final int localOffset,
        final int length, final long remoteAddress, final int rkey, final int immediate, final int flags)
    {
        throw ownerOnly();
    }

    @Override
    public int postSend(final long workRequestId, final MemoryRegion local, final int localOffset, final int length,
        final int flags)
    {
        throw ownerOnly();
    }

    @Override
    public boolean canPostSends(final int requests, final long bytes)
    {
        throw ownerOnly();
    }

    @Override
    public int postReceive(final long workRequestId, final MemoryRegion local, final int localOffset, final int length)
    {
        throw ownerOnly();
    }

    /** The owning thread closes the real queue pair; the handshake's failure leaves it to do so. */
    @Override
    public void close()
    {
        errorRequested = true;
    }

    private IllegalStateException ownerOnly()
    {
        return new IllegalStateException("posts to " + real + " belong to the thread that polls it");
    }

    @Override
    public String toString()
    {
        return real.toString();
    }
}
