package io.ringwire.rdma.soft;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Serialises a software device's progress between its owning threads and an optional progress
 * agent. Until {@link #enable()} is called (when an application asks for the agent), it costs one
 * volatile read per post or poll and nothing else. Once enabled, each post, poll and agent duty
 * cycle enters it with a compare-and-set (uncontended in the common case) and leaves it with a
 * release store, which also publishes the queue pair and completion queue state to the next one in.
 *
 * <p>Reentrant on the owning thread: a completion handler may post from inside a poll.
 */
final class ProgressGuard
{
    private static final VarHandle OWNER;

    static
    {
        try
        {
            OWNER = MethodHandles.lookup().findVarHandle(ProgressGuard.class, "owner", Thread.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private volatile boolean enabled;
    @SuppressWarnings("unused") // accessed through OWNER
    private volatile Thread owner;
    private int depth;

    /**
     * @return true once an agent shares the device's progress.
     */
    boolean isEnabled()
    {
        return enabled;
    }

    /**
     * Switches serialisation on. Call before the agent starts.
     */
    void enable()
    {
        enabled = true;
    }

    /**
     * Waits until this thread holds the guard (spinning: the holder only ever holds it for one
     * progress pass).
     */
    void enter()
    {
        final Thread current = Thread.currentThread();
        if (OWNER.getAcquire(this) == current)
        {
            depth++;
            return;
        }
        while (!OWNER.compareAndSet(this, null, current))
        {
            Thread.onSpinWait();
        }
        depth = 1;
    }

    /**
     * Takes the guard if it is free.
     *
     * @return true when this thread now holds it.
     */
    boolean tryEnter()
    {
        final Thread current = Thread.currentThread();
        if (OWNER.getAcquire(this) == current)
        {
            depth++;
            return true;
        }
        if (OWNER.compareAndSet(this, null, current))
        {
            depth = 1;
            return true;
        }
        return false;
    }

    /**
     * Leaves the guard (the outermost exit releases it).
     */
    void exit()
    {
        if (--depth == 0)
        {
            OWNER.setRelease(this, null);
        }
    }
}
