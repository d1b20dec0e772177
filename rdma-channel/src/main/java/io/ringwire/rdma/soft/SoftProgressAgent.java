package io.ringwire.rdma.soft;

import org.agrona.concurrent.Agent;

import java.util.function.Supplier;

/**
 * Makes progress for a software device (acknowledges, retransmits, executes incoming requests,
 * produces completions) from its own thread, for applications whose threads cannot poll all the
 * time. Completions it produces wait in their completion queues for the owning thread's poll.
 * Run it on an agrona {@code AgentRunner}; it shares the device with the owning threads through
 * the device's {@link ProgressGuard}, and skips a duty cycle when an owning thread is inside.
 */
public final class SoftProgressAgent implements Agent
{
    private final String roleName;
    private final ProgressGuard guard;
    private final Supplier<SoftCompletionQueue[]> completionQueues;

    /**
     * @param roleName         for the agent runner's thread.
     * @param guard            the device's guard, already enabled.
     * @param completionQueues the device's completion queues, read every duty cycle.
     */
    public SoftProgressAgent(final String roleName, final ProgressGuard guard,
        final Supplier<SoftCompletionQueue[]> completionQueues)
    {
        this.roleName = roleName;
        this.guard = guard;
        this.completionQueues = completionQueues;
    }

    @Override
    public int doWork()
    {
        if (!guard.tryEnter())
        {
            return 0;
        }
        try
        {
            int work = 0;
            for (final SoftCompletionQueue queue : completionQueues.get())
            {
                work += queue.progressUnguarded();
            }
            return work;
        }
        finally
        {
            guard.exit();
        }
    }

    @Override
    public String roleName()
    {
        return roleName;
    }
}
