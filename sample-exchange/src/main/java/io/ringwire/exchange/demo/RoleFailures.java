package io.ringwire.exchange.demo;

import org.agrona.ErrorHandler;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a role's agents threw: each printed as it happens, and counted, so that the role's exit
 * code says it failed (1) rather than that it ran through (an agent's runner goes on after a throw).
 *
 * <p>Threading: any agent thread reports; the role's main thread reads.
 */
final class RoleFailures implements ErrorHandler
{
    private final PrintStream err;
    private final AtomicLong count = new AtomicLong();

    /** @param err where each failure is printed. */
    RoleFailures(final PrintStream err)
    {
        this.err = err;
    }

    @Override
    public void onError(final Throwable throwable)
    {
        count.incrementAndGet();
        err.println("ringwire demo role: " + throwable);
    }

    /** @return failures reported so far. */
    long count()
    {
        return count.get();
    }

    /**
     * @param code the exit code the role's own checks give.
     * @return 1 when an agent failed, else {@code code}.
     */
    int exitCode(final int code)
    {
        return count.get() > 0 ? 1 : code;
    }
}
