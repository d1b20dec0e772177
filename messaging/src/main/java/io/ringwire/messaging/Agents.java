package io.ringwire.messaging;

import net.openhft.affinity.Affinity;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the application's agents (a matching engine's loop, a gateway's publication duty cycle) on
 * agrona {@link AgentRunner}s, each pinned to its own core with OpenHFT affinity, with the idle
 * strategy the configuration names. Busy-spinning is the default for the hot path; when more
 * threads would spin than the machine has CPUs, it says so and backs off instead of starving them.
 *
 * <p>Configuration: {@value #CORES_PROP} (e.g. "2,3"; agents take the listed cores in order, none
 * pinned when empty) and {@value #IDLE_PROP} (busy, yield, backoff or sleep).
 */
public final class Agents
{
    /** Cores to pin agents to, in order. */
    public static final String CORES_PROP = "ringwire.messaging.cores";
    /** Idle strategy of agents: busy, yield, backoff, sleep. */
    public static final String IDLE_PROP = "ringwire.messaging.idle";

    private static final System.Logger LOG = System.getLogger(Agents.class.getName());
    private static final AtomicInteger SPINNING = new AtomicInteger();
    private static final AtomicInteger NEXT_CORE = new AtomicInteger();

    private Agents()
    {
    }

    /**
     * @param name busy, yield, backoff or sleep.
     * @return a new idle strategy.
     */
    public static IdleStrategy idleStrategy(final String name)
    {
        return switch (name)
        {
            case "busy" -> new BusySpinIdleStrategy();
            case "yield" -> new YieldingIdleStrategy();
            case "backoff" -> new BackoffIdleStrategy();
            case "sleep" -> new SleepingMillisIdleStrategy(1);
            default -> throw new IllegalArgumentException(IDLE_PROP + "='" + name +
                "' is not an idle strategy; allowed: busy, yield, backoff, sleep");
        };
    }

    /**
     * Starts an agent on its own thread with the configured idle strategy and the next configured
     * core. If spinning agents would outnumber the online CPUs, logs a warning naming the numbers
     * and uses a backoff idle strategy for this one.
     *
     * @param agent        to run.
     * @param errorHandler for exceptions escaping the agent.
     * @return the started runner; close it to stop the agent.
     */
    public static AgentRunner start(final Agent agent, final ErrorHandler errorHandler)
    {
        final String idleName = System.getProperty(IDLE_PROP, "busy");
        IdleStrategy idle = idleStrategy(idleName);
        final boolean spinning = "busy".equals(idleName) || "yield".equals(idleName);
        if (spinning)
        {
            final int spinners = SPINNING.incrementAndGet();
            final int cpus = OnlineCpus.count();
            if (spinners > cpus)
            {
                LOG.log(System.Logger.Level.WARNING, "agent " + agent.roleName() + " would be spinning thread " +
                    spinners + " on a machine with " + cpus + " online CPUs: backing off instead of starving the others");
                idle = new BackoffIdleStrategy();
            }
        }
        final int core = nextCore();
        final Agent pinned = core < 0 ? agent : new PinnedAgent(agent, core);
        final AgentRunner runner = new AgentRunner(idle, errorHandler, null, pinned);
        AgentRunner.startOnThread(runner);
        return runner;
    }

    private static int nextCore()
    {
        final String cores = System.getProperty(CORES_PROP, "").trim();
        if (cores.isEmpty())
        {
            return -1;
        }
        final String[] list = cores.split(",");
        return Integer.parseInt(list[NEXT_CORE.getAndIncrement() % list.length].trim());
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
            final java.util.BitSet set = new java.util.BitSet();
            set.set(core);
            Affinity.setAffinity(set);
            return Affinity.getAffinity().equals(set);
        }
        catch (final RuntimeException | LinkageError ex)
        {
            LOG.log(System.Logger.Level.WARNING, "cannot pin thread " + Thread.currentThread().getName() +
                " to core " + core + ": " + ex);
            return false;
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
