package io.ringwire.messaging;

import io.ringwire.messaging.protocol.CreditLayout;
import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionQueue;

/**
 * What the connected subscribers let a publication write now: bytes up to the slowest one's
 * consumed position plus the ring, as many frames as every one has a receive posted for (see
 * {@link CreditLayout}), and what every queue pair can post at once. The first two are read from
 * the subscribers' credit writes and kept until they refuse something, so an offer that fits
 * reads nothing remote.
 *
 * <p>Threading: the publication's owning thread. Allocation-free.
 */
final class PublicationCredit
{
    private final PublicationDestinations destinations;
    private final CompletionQueue completionQueue;
    private final CompletionHandler completionHandler;
    private final int capacity;
    /** Memory logs: a frame takes no receive and no send-queue slot, only ring bytes. */
    private final boolean memoryLog;
    private long limitPosition;
    /** Frames every connected subscriber has a posted receive for. */
    private long receiveHeadroom;

    /**
     * @param completionHandler what completions reaped while waiting for credit go to.
     * @param capacity          the ring's length in bytes.
     * @param memoryLog         whether the subscribers' rings are memory logs.
     */
    PublicationCredit(final PublicationDestinations destinations, final CompletionQueue completionQueue,
        final CompletionHandler completionHandler, final int capacity, final boolean memoryLog)
    {
        this.memoryLog = memoryLog;
        this.destinations = destinations;
        this.completionQueue = completionQueue;
        this.completionHandler = completionHandler;
        this.capacity = capacity;
    }

    /**
     * True when every connected subscriber leaves room for {@code required} bytes from
     * {@code position} in its ring and has a receive posted for each of {@code frames} frames, and
     * every connected queue pair can post the frames now. Once admitted, a message's frames are
     * posted without waiting: an offer returns BACK_PRESSURED rather than spin on a full send queue.
     */
    boolean hasCredit(final long position, final long required, final int frames)
    {
        if (admits(position, required, frames))
        {
            return true;
        }
        refresh(position);
        if (admits(position, required, frames))
        {
            return true;
        }
        if (memoryLog)
        {
            // A memory log's subscribers store their credit straight into this region: a completion
            // queue's progress brings none, and polling it would only slow a publication that waits.
            return false;
        }
        completionQueue.poll(completionHandler, 64); // providers that need progress apply credit writes here
        refresh(position);
        return admits(position, required, frames);
    }

    /** Reads the connected subscribers' credit again; with none connected, nothing is admitted. */
    void refresh(final long position)
    {
        final long slowest = destinations.slowestConsumedPosition(position);
        limitPosition = slowest == Long.MAX_VALUE ? position : slowest + capacity;
        receiveHeadroom = destinations.receiveHeadroom();
    }

    /** A frame went out: it takes one of the receives the subscribers posted. */
    void framePosted()
    {
        receiveHeadroom--;
    }

    /** The admission test against the credit last read: ring bytes, posted receives, send room. */
    private boolean admits(final long position, final long required, final int frames)
    {
        return position + required <= limitPosition &&
            (memoryLog || (frames <= receiveHeadroom && destinations.canPostSends(frames, required)));
    }
}
