package io.ringwire.messaging.status;

import io.ringwire.rdma.DeviceCounters;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * A device's {@link DeviceCounters} (ICRC errors, malformed packets, unknown queue pairs, refused
 * requests, foreign packets, ghost acknowledgements...) copied into the process's
 * {@link CountersFile} under their owner's label, so that {@code ringwire stat} shows them beside
 * the messaging counters. The device keeps its counters in its own memory (in shared memory for
 * shm, where a peer counts refusals on them); the copy follows them on every {@link #update()}.
 *
 * <p>Threading: the owner's thread updates (release stores); any thread or process reads.
 */
public final class DeviceCounterMirror
{
    private final DeviceCounters source;
    private final AtomicCounter[] copies = new AtomicCounter[DeviceCounters.COUNT];

    DeviceCounterMirror(final CounterSet set, final DeviceCounters source)
    {
        this.source = source;
        for (int i = 0; i < copies.length; i++)
        {
            copies[i] = set.newCounter("device " + DeviceCounters.name(i));
        }
    }

    /**
     * @param counter one of {@link DeviceCounters}' constants.
     * @return its value as last copied.
     */
    public long get(final int counter)
    {
        return copies[counter].get();
    }

    /** Copies every device counter into the file. Allocation-free; the owner's duty cycle calls it. */
    public void update()
    {
        for (int i = 0; i < copies.length; i++)
        {
            copies[i].setRelease(source.get(i));
        }
    }
}
