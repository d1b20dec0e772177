package io.ringwire.messaging;

import io.ringwire.rdma.host.OnlineCpus;
import net.openhft.affinity.Affinity;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static io.ringwire.messaging.PubSubTestSupport.SECRET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Agents run on agrona AgentRunners with the context's idle strategy, pinned to the context's cores,
 * and back off with a warning instead of spinning more threads than the machine has CPUs.
 */
class AgentsTest
{
    @TempDir
    Path directory;

    @Test
    void anAgentRunsWithTheConfiguredIdleStrategyUntilClosed() throws Exception
    {
        final CountingAgent agent = new CountingAgent();
        final Agents.RunningAgent running = Agents.start(context("sleep", ""), agent, Throwable::printStackTrace);
        try
        {
            assertInstanceOf(SleepingMillisIdleStrategy.class, running.idleStrategy());
            assertEquals(-1, running.core(), "no cores configured: not pinned");
            assertTrue(agent.started.get(10, TimeUnit.SECONDS));
            awaitWork(agent, 5);
        }
        finally
        {
            running.close();
        }
        assertTrue(agent.closed.get(10, TimeUnit.SECONDS), "onClose ran");
        assertTrue(running.runner().isClosed());
        final long after = agent.work.get();
        Thread.sleep(50);
        assertEquals(after, agent.work.get(), "no work after close");
    }

    @Test
    void eachAgentIsPinnedToTheNextFreeConfiguredCore() throws Exception
    {
        assumeTrue(OnlineCpus.isOnline(1), "needs CPUs 0 and 1");
        final MessagingContext context = context("sleep", "1,0");
        final CountingAgent first = new CountingAgent();
        final CountingAgent second = new CountingAgent();
        final CountingAgent third = new CountingAgent();
        try (Agents.RunningAgent one = Agents.start(context, first, Throwable::printStackTrace);
             Agents.RunningAgent two = Agents.start(context, second, Throwable::printStackTrace))
        {
            assertEquals(1, one.core());
            assertEquals(0, two.core());
            assertEquals(cpuSet(1), first.affinity.get(10, TimeUnit.SECONDS), "first agent's thread on CPU 1");
            assertEquals(cpuSet(0), second.affinity.get(10, TimeUnit.SECONDS), "second agent's thread on CPU 0");
            try (Agents.RunningAgent three = Agents.start(context, third, Throwable::printStackTrace))
            {
                assertEquals(-1, three.core(), "both listed cores are taken: not pinned");
                third.started.get(10, TimeUnit.SECONDS);
            }
        }
        // Closed agents give their cores back.
        final CountingAgent fourth = new CountingAgent();
        try (Agents.RunningAgent four = Agents.start(context, fourth, Throwable::printStackTrace))
        {
            assertEquals(1, four.core());
            assertEquals(cpuSet(1), fourth.affinity.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void anAgentRefusedForANullErrorHandlerTakesNoCore() throws Exception
    {
        final MessagingContext context = context("sleep", "0");
        assertThrows(NullPointerException.class, () -> Agents.start(context, new CountingAgent(), null));
        try (Agents.RunningAgent running = Agents.start(context, new CountingAgent(), Throwable::printStackTrace))
        {
            assertEquals(0, running.core(), "the refused agent left the core free");
        }
    }

    @Test
    void spinningAgentsBeyondTheOnlineCpusBackOffWithAWarning() throws Exception
    {
        final int cpus = OnlineCpus.count();
        final MessagingContext context = context("busy", "");
        // Warnings take RingWire's logging path, which writes one line each to the current stderr.
        final PrintStream savedErr = System.err;
        final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        System.setErr(new PrintStream(errBytes, true, StandardCharsets.UTF_8));
        final int spinningBefore = Agents.spinningAgents();
        final List<Agents.RunningAgent> running = new ArrayList<>();
        try
        {
            for (int i = spinningBefore; i < cpus; i++)
            {
                final Agents.RunningAgent spinner = Agents.start(context, new CountingAgent(), Throwable::printStackTrace);
                running.add(spinner);
                assertFalse(spinner.backedOff(), "spinner " + (i + 1) + " of " + cpus + " CPUs");
                assertInstanceOf(BusySpinIdleStrategy.class, spinner.idleStrategy());
            }
            assertEquals(cpus, Agents.spinningAgents());
            final CountingAgent extra = new CountingAgent();
            final Agents.RunningAgent oneTooMany = Agents.start(context, extra, Throwable::printStackTrace);
            running.add(oneTooMany);
            assertTrue(oneTooMany.backedOff());
            assertInstanceOf(BackoffIdleStrategy.class, oneTooMany.idleStrategy());
            assertEquals(cpus, Agents.spinningAgents(), "the one backing off does not spin");
            awaitWork(extra, 5);
            final List<String> warnings = errBytes.toString(StandardCharsets.UTF_8).lines()
                .filter(line -> line.startsWith("WARN Agents: ")).toList();
            assertTrue(warnings.stream().anyMatch(message -> message.contains("backs off") &&
                message.contains("spinning thread " + (cpus + 1)) && message.contains(cpus + " online CPUs")),
                "warning names the numbers: " + warnings);
        }
        finally
        {
            running.forEach(Agents.RunningAgent::close);
            System.setErr(savedErr);
        }
        assertEquals(spinningBefore, Agents.spinningAgents(), "closed spinners free their slots");
        try (Agents.RunningAgent again = Agents.start(context, new CountingAgent(), Throwable::printStackTrace))
        {
            assertFalse(again.backedOff(), "room again once the others closed");
        }
    }

    @Test
    void theContextRefusesABadCoreListOrIdleStrategyNamingTheProperty()
    {
        for (final String cores : new String[]{ "0,x", "-1", "4095", "0,,1" })
        {
            final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> context("busy", cores), cores);
            assertTrue(refused.getMessage().contains(MessagingContext.CORES_PROP), refused.getMessage());
        }
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> context("nap", ""));
        assertTrue(refused.getMessage().contains(MessagingContext.IDLE_PROP), refused.getMessage());
        assertEquals(0, context("yield", " 0 ").cores()[0]);
    }

    private MessagingContext context(final String idle, final String cores)
    {
        return new MessagingContext().secret(SECRET).countersDirectory(directory.resolve("counters").toString())
            .idleStrategy(idle).cores(cores).conclude();
    }

    private static BitSet cpuSet(final int cpu)
    {
        final BitSet set = new BitSet();
        set.set(cpu);
        return set;
    }

    private static void awaitWork(final CountingAgent agent, final long calls) throws InterruptedException
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (agent.work.get() < calls)
        {
            assertTrue(System.nanoTime() < deadline, "agent did " + agent.work.get() + " duty cycles");
            Thread.sleep(1);
        }
    }

    /** Counts its duty cycles and records where its thread may run. */
    private static final class CountingAgent implements Agent
    {
        final AtomicLong work = new AtomicLong();
        final CompletableFuture<Boolean> started = new CompletableFuture<>();
        final CompletableFuture<Boolean> closed = new CompletableFuture<>();
        final CompletableFuture<BitSet> affinity = new CompletableFuture<>();

        @Override
        public void onStart()
        {
            started.complete(true);
        }

        @Override
        public int doWork()
        {
            if (!affinity.isDone())
            {
                affinity.complete(Affinity.getAffinity());
            }
            work.incrementAndGet();
            return 0;
        }

        @Override
        public void onClose()
        {
            closed.complete(true);
        }

        @Override
        public String roleName()
        {
            return "counting";
        }
    }
}
