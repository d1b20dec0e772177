package io.ringwire.messaging.status;

import io.ringwire.messaging.ChannelUri;
import io.ringwire.messaging.MessagingContext;
import org.agrona.concurrent.status.AtomicCounter;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The counters of one publication or subscription in the process's {@link CountersFile}: each
 * labelled with its owner (role, stream, provider and endpoint) so {@code ringwire stat} tells them
 * apart, all freed together, and the file released with the last set that used it.
 *
 * <p>Threading: control path only (allocating and freeing take the counters file's lock).
 */
final class CounterSet implements AutoCloseable
{
    private final CountersFile file;
    private final String prefix;
    private final List<AtomicCounter> counters = new ArrayList<>();

    /**
     * @param context  the owner's context (its counters directory).
     * @param channel  the owner's channel (its provider and endpoint label the counters).
     * @param role     "pub" or "sub".
     * @param streamId the owner's stream.
     */
    CounterSet(final MessagingContext context, final ChannelUri channel, final String role, final int streamId)
    {
        this.file = CountersFile.acquire(context.countersDirectory());
        this.prefix = role + " stream=" + streamId + " " + channel.provider() + " " + channel.get("endpoint") + ": ";
    }

    /**
     * Builds an owner's counters on a new set: a set whose counters cannot all be taken (a full
     * counters file) is freed, not left holding the ones it took.
     *
     * @param context  the owner's context (its counters directory).
     * @param channel  the owner's channel (its provider and endpoint label the counters).
     * @param role     "pub" or "sub".
     * @param streamId the owner's stream.
     * @param build    takes the set and allocates the owner's counters on it.
     * @param <T>      the owner's counters.
     * @return what {@code build} made.
     */
    static <T> T build(final MessagingContext context, final ChannelUri channel, final String role,
        final int streamId, final Function<CounterSet, T> build)
    {
        final CounterSet set = new CounterSet(context, channel, role, streamId);
        try
        {
            return build.apply(set);
        }
        catch (final RuntimeException ex)
        {
            set.close();
            throw ex;
        }
    }

    /**
     * @param name what the counter counts, after the owner's label.
     * @return a new counter, freed by {@link #close()}.
     */
    AtomicCounter newCounter(final String name)
    {
        final AtomicCounter counter = file.newCounter(prefix + name);
        counters.add(counter);
        return counter;
    }

    /** Frees every counter of the set and releases the file. */
    @Override
    public void close()
    {
        for (final AtomicCounter counter : counters)
        {
            file.free(counter);
        }
        counters.clear();
        CountersFile.release(file);
    }
}
