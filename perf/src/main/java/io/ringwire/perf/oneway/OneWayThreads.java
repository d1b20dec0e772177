package io.ringwire.perf.oneway;

import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.host.ThreadPinning;
import io.ringwire.perf.host.ThreadPlan;

/**
 * What the one-way sender and receiver threads share: pinning themselves as {@link CpuPlan} chose,
 * and idling the way it chose (spin on a CPU of their own, yield when sharing).
 */
final class OneWayThreads
{
    private OneWayThreads()
    {
    }

    /**
     * Pins the calling thread, or warns and runs unpinned.
     *
     * @param role "sender" or "receiver", for the warning.
     * @param plan where it runs.
     */
    static void pin(final String role, final ThreadPlan plan)
    {
        if (CpuPlan.UNPINNED == plan.cpu())
        {
            return;
        }
        final String failure = ThreadPinning.pinCurrentThread(plan.cpu());
        if (null != failure)
        {
            plan.warnings().println("warning: " + role + " not pinned to cpu " + plan.cpu() + ": " + failure);
        }
    }

    /**
     * One idle step of a loop that found nothing to do.
     *
     * @param plan how the thread idles.
     */
    static void idle(final ThreadPlan plan)
    {
        if (plan.yieldWhenIdle())
        {
            Thread.yield();
        }
        else
        {
            Thread.onSpinWait();
        }
    }
}
