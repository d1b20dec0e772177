package io.ringwire.perf.perftest;

import java.io.Serial;

/**
 * A perftest peer said something this side cannot take: a malformed exchange message, a version
 * whose exchange differs, a connection closed mid-message, or no answer in time. The message names
 * the exchange step and what was expected.
 */
public final class PerftestProtocolException extends RuntimeException
{
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the step.
     */
    public PerftestProtocolException(final String message)
    {
        super(message);
    }
}
