package io.ringwire.exchange.node;

/**
 * Whether a run goes on: cleared once, from any thread (Ctrl-C, the end of the run), read by every
 * role's loop.
 */
public final class RunFlag
{
    private volatile boolean running = true;

    /** @return true until {@link #stop()}. */
    public boolean isRunning()
    {
        return running;
    }

    /** Ends the run. */
    public void stop()
    {
        running = false;
    }
}
