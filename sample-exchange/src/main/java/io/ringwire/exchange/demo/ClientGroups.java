package io.ringwire.exchange.demo;

import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The simulated clients of an in-process run, dealt out among groups that each run on a thread of
 * their own where the CPUs allow ({@link ThreadLayout#clientGroups}): what is asked of all of them,
 * and their counters added up.
 *
 * <p>Threading: any thread reads the counters; each group runs on its own thread.
 */
public final class ClientGroups
{
    private final List<SimulatedClients> groups;

    /**
     * @param groups the groups, each with clients of its own, at least one.
     */
    ClientGroups(final List<SimulatedClients> groups)
    {
        if (groups.isEmpty())
        {
            throw new IllegalArgumentException("no client group");
        }
        this.groups = List.copyOf(groups);
    }

    /**
     * The groups' first and end client index: the clients dealt out as evenly as they go, the
     * earlier groups taking one more where they do not divide.
     *
     * @param groups  groups.
     * @param clients clients.
     * @param group   a group, or {@code groups} for the end of the last.
     * @return the index of the group's first client.
     */
    static int firstClientOf(final int groups, final int clients, final int group)
    {
        return group * (clients / groups) + Math.min(group, clients % groups);
    }

    /** @return the groups. */
    public List<SimulatedClients> groups()
    {
        return groups;
    }

    /**
     * @return every group's counters added up, now (a copy: ask again for later values), with
     *         {@link SimulatedClients#MAX_SEQUENCE} the highest of them.
     */
    public AtomicLongArray counters()
    {
        final AtomicLongArray total = new AtomicLongArray(groups.getFirst().counters().length());
        for (int i = 0; i < total.length(); i++)
        {
            total.set(i, i == SimulatedClients.MAX_SEQUENCE ? highest(i) : total(i));
        }
        return total;
    }

    /** @return one counter added up over every group (not {@link SimulatedClients#MAX_SEQUENCE}). */
    public long total(final int counter)
    {
        long total = 0;
        for (final SimulatedClients group : groups)
        {
            total += group.counters().get(counter);
        }
        return total;
    }

    private long highest(final int counter)
    {
        long highest = 0;
        for (final SimulatedClients group : groups)
        {
            highest = Math.max(highest, group.counters().get(counter));
        }
        return highest;
    }

    /** Stops every group's flow; replies are still read. */
    public void stopSending()
    {
        for (final SimulatedClients group : groups)
        {
            group.stopSending();
        }
    }

    /** @return whether every client of every group is connected. */
    public boolean isConnected()
    {
        for (final SimulatedClients group : groups)
        {
            if (!group.isConnected())
            {
                return false;
            }
        }
        return true;
    }

    /** @return replies read and publications driven in every group, without sending. */
    public int pollOnly()
    {
        int work = 0;
        for (final SimulatedClients group : groups)
        {
            work += group.pollOnly();
        }
        return work;
    }
}
