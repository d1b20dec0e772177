package io.ringwire.rdma;

/**
 * A completion queue ({@code ibv_cq}), busy-polled.
 *
 * <p>Threading: one polling thread, the same thread that posts to the queue pairs attached to it
 * (software providers make progress for those queue pairs inside {@code poll}).
 */
public interface CompletionQueue extends AutoCloseable
{
    /**
     * Drains up to {@code maxCompletions} completions, oldest first, handing each to the handler.
     * Allocates nothing; never blocks. A handler may close this queue (after the queue pairs that
     * use it): the poll then hands over nothing more, and later polls return 0.
     *
     * @param handler        receives each completion.
     * @param maxCompletions upper bound, &gt; 0.
     * @return the number handed to the handler (0 when none were ready).
     */
    int poll(CompletionHandler handler, int maxCompletions);

    /**
     * Makes progress for the queue pairs attached to this queue without handing over completions:
     * incoming requests are executed and acknowledged, and what completes waits for the next
     * {@link #poll}. For an owner that holds its input back for a while (its own output is
     * backlogged): a software provider's peers would otherwise hear nothing and, after the peer
     * timeout, take it for gone. Hardware progresses by itself, so the default does nothing.
     * Allocates nothing; never blocks.
     *
     * @return work done (0 when there was none).
     */
    default int progress()
    {
        return 0;
    }

    /**
     * @return how many completions the queue holds.
     */
    int depth();

    /**
     * Closes the queue. Idempotent.
     */
    @Override
    void close();
}
