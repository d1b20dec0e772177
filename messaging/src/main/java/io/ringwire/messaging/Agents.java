package io.ringwire.messaging;

import io.ringwire.rdma.config.Settings;
import io.ringwire.rdma.host.OnlineCpus;
import net.openhft.affinity.Affinity;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the application's agents (a matching engine's loop, a gateway's publication duty cycle) on
 * agrona {@link AgentRunner}s, each pinned to its own core with OpenHFT affinity, with the idle
 * strategy the context names ({@link MessagingContext#IDLE_PROP}, busy-spinning by default, for the
 * hot path). Each agent takes the first core of the context's list ({@link MessagingContext#CORES_PROP})
 * that no running agent of this process has; with none listed, or none left (a warning), it is not
 * pinned.
 *
 * <p>When more threads would spin (busy or yield) than the machine has online CPUs, the agent that
 * would be one too many gets a warning naming the numbers and a backoff idle strategy instead, so
 * it does not starve the others. An agent holds its core and its spinning slot until its
 * {@link RunningAgent} is closed.
 *
 * <p>Threading: any thread.
 */
public final class Agents
{
    static final List<String> IDLE_STRATEGIES = List.of("busy", "yield", "backoff", "sleep");
    private static final System.Logger LOG = System.getLogger(Agents.class.getName());
    private static final AtomicInteger SPINNING = new AtomicInteger();
    /** Cores of running agents; guarded by itself. */
    private static final BitSet TAKEN_CORES = new BitSet();

    private Agents()
    {
    }

    /**
     * @param name busy, yield, backoff or sleep.
     * @return a new idle strategy.
     * @throws IllegalArgumentException naming {@link MessagingContext#IDLE_PROP} for another name.
     */
    public static IdleStrategy idleStrategy(final String name)
    {
        return switch (Settings.oneOf(MessagingContext.IDLE_PROP, name, IDLE_STRATEGIES))
        {
            case "busy" -> new BusySpinIdleStrategy();
            case "yield" -> new YieldingIdleStrategy();
            case "backoff" -> new BackoffIdleStrategy();
            default -> new SleepingMillisIdleStrategy(1);
        };
    }

    /**
     * @return threads spinning in agents started here and not closed yet.
     */
    public static int spinningAgents()
    {
        return SPINNING.get();
    }

    /**
     * Starts an agent on its own thread with the context's idle strategy, pinned to the next core of
     * the context's list (if any), backing off with a warning when it would spin one thread too
     * many.
     *
     * @param context      concluded context: idle strategy and cores.
     * @param agent        to run.
     * @param errorHandler for exceptions escaping the agent.
     * @return the running agent; close it to stop the agent.
     */
    public static RunningAgent start(final MessagingContext context, final Agent agent, final ErrorHandler errorHandler)
    {
        // Before a core or a spinning place is taken: the runner refuses nulls only after both.
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(errorHandler, "errorHandler");
        final String idleName = context.idleStrategy();
        final int[] cores = context.cores();
        final int core = takeCore(cores);
        IdleStrategy idle = idleStrategy(idleName);
        boolean spinning = "busy".equals(idleName) || "yield".equals(idleName);
        if (cores.length > 0 && core < 0)
        {
            LOG.log(System.Logger.Level.WARNING, "agent " + agent.roleName() + " is not pinned: every core " +
                MessagingContext.CORES_PROP + " lists (" + cores.length + ") has a running agent already");
        }
        boolean backedOff = false;
        if (spinning)
        {
            final int spinners = SPINNING.incrementAndGet();
            final int cpus = OnlineCpus.count();
            if (spinners > cpus)
            {
                SPINNING.decrementAndGet();
                spinning = false;
                backedOff = true;
                idle = new BackoffIdleStrategy();
                LOG.log(System.Logger.Level.WARNING, "agent " + agent.roleName() + " backs off instead of " +
                    idleName + "-spinning: it would be spinning thread " + spinners + " on a machine with " + cpus +
                    " online CPUs, and would starve the others");
            }
        }
        final Agent runnable = core < 0 ? agent : new PinnedAgent(agent, core);
        final AgentRunner runner = new AgentRunner(idle, errorHandler, null, runnable);
        final RunningAgent running = new RunningAgent(runner, idle, core, backedOff, spinning);
        try
        {
            AgentRunner.startOnThread(runner);
        }
        catch (final RuntimeException ex)
        {
            running.close();
            throw ex;
        }
        return running;
    }

    /**
     * @param cores the configured list.
     * @return the first listed core no running agent has (now taken), or -1.
     */
    private static int takeCore(final int[] cores)
    {
        synchronized (TAKEN_CORES)
        {
            for (final int core : cores)
            {
                if (!TAKEN_CORES.get(core))
                {
                    TAKEN_CORES.set(core);
                    return core;
                }
            }
            return -1;
        }
    }

    private static void releaseCore(final int core)
    {
        if (core >= 0)
        {
            synchronized (TAKEN_CORES)
            {
                TAKEN_CORES.clear(core);
            }
        }
    }

    /**
     * Pins the calling thread to one core.
     *
     * @param core the CPU number.
     * @return true when the affinity changed (false when the platform refused; logged).
     */
    public static boolean pinCurrentThread(final int core)
    {
        try
        {
            final BitSet set = new BitSet();
            set.set(core);
            Affinity.setAffinity(set);
            return Affinity.getAffinity().equals(set);
        }
        catch (final RuntimeException | LinkageError ex)
        {
            LOG.log(System.Logger.Level.WARNING, "cannot pin thread " + Thread.currentThread().getName() +
                " to core " + core, ex);
            return false;
        }
    }

    /**
     * An agent started by {@link #start}: what it was given, and the handle that stops it.
     */
    public static final class RunningAgent implements AutoCloseable
    {
        private final AgentRunner runner;
        private final IdleStrategy idleStrategy;
        private final int core;
        private final boolean backedOff;
        private final boolean spinning;
        private final AtomicBoolean released = new AtomicBoolean();

        private RunningAgent(final AgentRunner runner, final IdleStrategy idleStrategy, final int core,
            final boolean backedOff, final boolean spinning)
        {
            this.runner = runner;
            this.idleStrategy = idleStrategy;
            this.core = core;
            this.backedOff = backedOff;
            this.spinning = spinning;
        }

        /** @return the runner (its thread, whether it is closed). */
        public AgentRunner runner()
        {
            return runner;
        }

        /** @return the idle strategy the agent runs with. */
        public IdleStrategy idleStrategy()
        {
            return idleStrategy;
        }

        /** @return the core its thread is pinned to, or -1 when not pinned. */
        public int core()
        {
            return core;
        }

        /** @return true when it was to spin but backs off instead (see {@link Agents}). */
        public boolean backedOff()
        {
            return backedOff;
        }

        /** Stops the agent (its onClose runs on its thread) and frees its spinning slot and core. */
        @Override
        public void close()
        {
            runner.close();
            if (released.compareAndSet(false, true))
            {
                if (spinning)
                {
                    SPINNING.decrementAndGet();
                }
                releaseCore(core);
            }
        }
    }

    /** Pins its thread when started, then delegates. */
    private static final class PinnedAgent implements Agent
    {
        private final Agent delegate;
        private final int core;

        PinnedAgent(final Agent delegate, final int core)
        {
            this.delegate = delegate;
            this.core = core;
        }

        @Override
        public void onStart()
        {
            pinCurrentThread(core);
            delegate.onStart();
        }

        @Override
        public int doWork() throws Exception
        {
            return delegate.doWork();
        }

        @Override
        public void onClose()
        {
            delegate.onClose();
        }

        @Override
        public String roleName()
        {
            return delegate.roleName();
        }
    }
}
