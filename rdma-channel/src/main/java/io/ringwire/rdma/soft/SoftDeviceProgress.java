package io.ringwire.rdma.soft;

import io.ringwire.rdma.DeviceCounters;
import org.agrona.concurrent.Agent;

import java.util.Arrays;

/**
 * A software device's progress plumbing: its {@link ProgressGuard}, the completion queues it
 * created (whose attached queue pairs an agent drives), and the optional progress agent.
 *
 * <p>Threading: queues are created on the control thread; the array is copied on change and
 * published through a volatile field for the agent's thread.
 */
public final class SoftDeviceProgress
{
    private final ProgressGuard guard = new ProgressGuard();
    private volatile SoftCompletionQueue[] completionQueues = new SoftCompletionQueue[0];

    /**
     * @return the guard every queue pair and completion queue of the device shares.
     */
    public ProgressGuard guard()
    {
        return guard;
    }

    /**
     * Creates a completion queue that shares the device's guard and is driven by its agent.
     *
     * @param depth    completions it holds.
     * @param counters the device's counters.
     * @return the queue.
     */
    public synchronized SoftCompletionQueue newCompletionQueue(final int depth, final DeviceCounters counters)
    {
        final SoftCompletionQueue queue = new SoftCompletionQueue(depth, counters, guard);
        final SoftCompletionQueue[] updated = Arrays.copyOf(completionQueues, completionQueues.length + 1);
        updated[completionQueues.length] = queue;
        completionQueues = updated;
        return queue;
    }

    /**
     * Switches the guard on and returns an agent driving every completion queue of the device.
     *
     * @param roleName for the agent's thread.
     * @return the agent; run it on an agrona AgentRunner.
     */
    public Agent newAgent(final String roleName)
    {
        guard.enable();
        return new SoftProgressAgent(roleName, guard, () -> completionQueues);
    }
}
