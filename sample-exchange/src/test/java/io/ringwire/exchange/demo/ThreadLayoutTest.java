package io.ringwire.exchange.demo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ThreadLayoutTest
{
    @Test
    void twoOrThreeCpusKeepTheStatedTwoSpinningThreads()
    {
        assertEquals(ThreadLayout.SHARED, ThreadLayout.forCpus(1));
        assertEquals(ThreadLayout.SHARED, ThreadLayout.forCpus(2));
        assertEquals(ThreadLayout.SHARED, ThreadLayout.forCpus(3));
        assertEquals(2, ThreadLayout.SHARED.groups().size());
        assertEquals("gateway + market data + clients + market-data subscriber",
            ThreadLayout.words(ThreadLayout.SHARED.groups().get(1)));
    }

    @Test
    void fourToSixCpusPairTheRolesBesideTheEngine()
    {
        for (int cpus = 4; cpus <= 6; cpus++)
        {
            assertEquals(ThreadLayout.PAIRED, ThreadLayout.forCpus(cpus), cpus + " CPUs");
        }
        assertEquals(List.of("engine", "gateway + market data", "clients + market-data subscriber"),
            words(ThreadLayout.PAIRED));
    }

    @ParameterizedTest
    @ValueSource(ints = { 7, 8, 16, 64 })
    void sevenCpusOrMoreGiveEveryRoleACoreOfItsOwnAndLeaveTwoForTheRest(final int cpus)
    {
        final ThreadLayout layout = ThreadLayout.forCpus(cpus);
        assertEquals(ThreadLayout.SEPARATE, layout);
        assertEquals(List.of("engine", "gateway", "market data", "clients", "market-data subscriber"), words(layout));
        assertTrue(cpus - layout.groups().size() >= 2, "the digest and main threads have CPUs beside the spinners");
    }

    @Test
    void everyLayoutRunsEveryRoleExactlyOnceAndTheEngineAlone()
    {
        for (final ThreadLayout layout : ThreadLayout.values())
        {
            final List<ThreadLayout.Role> seen = new ArrayList<>();
            layout.groups().forEach(seen::addAll);
            assertEquals(ThreadLayout.Role.values().length, seen.size(), layout.name());
            assertEquals(EnumSet.allOf(ThreadLayout.Role.class), EnumSet.copyOf(seen), layout.name());
            assertEquals(List.of(ThreadLayout.Role.ENGINE), layout.groups().get(0), layout.name());
        }
    }

    @Test
    void clientsTakeAGroupPerCpuBeyondTheExchangesThreadsOnlyWhereEveryRoleHasACoreOfItsOwn()
    {
        for (int cpus = 1; cpus <= 8; cpus++)
        {
            assertEquals(1, ThreadLayout.clientGroups(cpus, 16), cpus + " CPUs");
        }
        assertEquals(2, ThreadLayout.clientGroups(9, 16));
        assertEquals(9, ThreadLayout.clientGroups(16, 16), "engine, journaller, gateway, market data, " +
            "market-data subscriber and two spare: nine CPUs left for clients");
        assertEquals(4, ThreadLayout.clientGroups(16, 4), "at most a group per client");
        assertEquals(1, ThreadLayout.clientGroups(64, 1));
    }

    @Test
    void clientsAreDealtOutAmongTheGroupsAsEvenlyAsTheyGoEveryOneOnce()
    {
        for (int groups = 1; groups <= 9; groups++)
        {
            for (int clients = groups; clients <= 40; clients++)
            {
                assertEquals(0, ClientGroups.firstClientOf(groups, clients, 0));
                assertEquals(clients, ClientGroups.firstClientOf(groups, clients, groups));
                for (int group = 0; group < groups; group++)
                {
                    final int size = ClientGroups.firstClientOf(groups, clients, group + 1) -
                        ClientGroups.firstClientOf(groups, clients, group);
                    assertTrue(size == clients / groups || size == clients / groups + 1,
                        groups + " groups, " + clients + " clients: group " + group + " has " + size);
                }
            }
        }
    }

    private static List<String> words(final ThreadLayout layout)
    {
        return layout.groups().stream().map(ThreadLayout::words).toList();
    }
}
