package io.ringwire.perf.exchange;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The live GTC orders of each instrument in the order they were placed, for the matching flow to
 * pick from as exchange-core's generator does: uniformly among the {@link #WINDOW} oldest. Each
 * instrument keeps its oldest orders in a window (in no particular order: the pick is uniform) and
 * the younger ones in a queue behind it, which refills the window, oldest first, when a window
 * order dies. An order that dies in the queue is only marked, and skipped at the refill, so every
 * operation is constant time, amortised.
 *
 * <p>Orders are named by handles, 0 and up, never reused.
 *
 * <p>Threading: the generating thread.
 */
final class OldestOrders
{
    /** The picks come from this many oldest live orders of an instrument. */
    static final int WINDOW = 512;

    private static final int DEAD = -1;
    private static final int QUEUED = -2;

    private final int[][] window;
    private final int[] windowSize;
    private final int[][] queue;
    private final int[] queueHead;
    private final int[] queueTail;
    private final int[] queueLive;
    /** Per handle: its index in its instrument's window, {@link #QUEUED} or {@link #DEAD}. */
    private int[] position = new int[1024];

    /**
     * @param instruments instruments, indexes 0 to N-1.
     */
    OldestOrders(final int instruments)
    {
        window = new int[instruments][WINDOW];
        windowSize = new int[instruments];
        queue = new int[instruments][64];
        queueHead = new int[instruments];
        queueTail = new int[instruments];
        queueLive = new int[instruments];
        Arrays.fill(position, DEAD);
    }

    /** @return live orders of the instrument. */
    int size(final int instrument)
    {
        return windowSize[instrument] + queueLive[instrument];
    }

    /** @return whether the order is live (added and not removed). */
    boolean contains(final int handle)
    {
        return handle < position.length && position[handle] != DEAD;
    }

    /** Adds a new order: the youngest of its instrument. */
    void add(final int instrument, final int handle)
    {
        if (handle >= position.length)
        {
            final int old = position.length;
            position = Arrays.copyOf(position, Math.max(handle + 1, old * 2));
            Arrays.fill(position, old, position.length, DEAD);
        }
        if (queueLive[instrument] == 0 && windowSize[instrument] < WINDOW)
        {
            position[handle] = windowSize[instrument];
            window[instrument][windowSize[instrument]++] = handle;
            return;
        }
        if (queueTail[instrument] == queue[instrument].length)
        {
            compactQueue(instrument);
        }
        queue[instrument][queueTail[instrument]++] = handle;
        queueLive[instrument]++;
        position[handle] = QUEUED;
    }

    /** Removes a live order of the instrument. */
    void remove(final int instrument, final int handle)
    {
        final int at = position[handle];
        position[handle] = DEAD;
        if (at == QUEUED)
        {
            queueLive[instrument]--;
            return;
        }
        final int[] orders = window[instrument];
        final int last = --windowSize[instrument];
        if (at != last)
        {
            orders[at] = orders[last];
            position[orders[at]] = at;
        }
        refill(instrument);
    }

    /** @return one of the {@link #WINDOW} oldest live orders of the instrument, uniformly; it has one. */
    int pick(final int instrument, final SplittableRandom random)
    {
        return window[instrument][random.nextInt(windowSize[instrument])];
    }

    private void refill(final int instrument)
    {
        final int[] waiting = queue[instrument];
        while (queueLive[instrument] > 0 && windowSize[instrument] < WINDOW)
        {
            final int handle = waiting[queueHead[instrument]++];
            if (position[handle] == QUEUED)
            {
                queueLive[instrument]--;
                position[handle] = windowSize[instrument];
                window[instrument][windowSize[instrument]++] = handle;
            }
        }
        if (queueLive[instrument] == 0)
        {
            queueHead[instrument] = 0;
            queueTail[instrument] = 0;
        }
    }

    /** Drops the dead entries of a full queue, and grows it when it is still more than half full. */
    private void compactQueue(final int instrument)
    {
        int[] waiting = queue[instrument];
        int kept = 0;
        for (int i = queueHead[instrument]; i < queueTail[instrument]; i++)
        {
            if (position[waiting[i]] == QUEUED)
            {
                waiting[kept++] = waiting[i];
            }
        }
        if (kept * 2 > waiting.length)
        {
            waiting = Arrays.copyOf(waiting, waiting.length * 2);
            queue[instrument] = waiting;
        }
        queueHead[instrument] = 0;
        queueTail[instrument] = kept;
    }
}
