package io.ringwire.rdma.soft;

import org.agrona.concurrent.Agent;

/**
 * Makes progress for a software device (acknowledges, retransmits, executes incoming requests,
 * produces completions) from its own thread, for applications whose threads cannot poll all the
 * time. Completions it produces wait in their completion queues for the owning thread's poll.
 * Run it on an agrona {@code AgentRunner}; it shares the device with the owning threads through
 * the device's {@link ProgressGuard}, and skips a duty cycle when an owning thread is inside.
 */
final class SoftProgressAgent implements Agent
{
    private final String roleName;
    private final ProgressGuard guard;
    private final SoftDevice device;

    /**
     * @param roleName for the agent runner's thread.
     * @param device   whose completion queues it drives, its guard already enabled.
     */
    SoftProgressAgent(final String roleName, final SoftDevice device)
    {
        this.roleName = roleName;
        this.guard = device.progressGuard();
        this.device = device;
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
            for (final SoftCompletionQueue queue : device.completionQueues())
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
