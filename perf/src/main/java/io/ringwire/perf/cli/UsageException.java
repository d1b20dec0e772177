package io.ringwire.perf.cli;

import java.io.Serial;

/**
 * A command line that cannot run as given: an unknown option, a bad value, or a run this machine
 * cannot host without a flag that says so. The message names the option and what is allowed; the
 * tools exit with {@link #EXIT_CODE}.
 */
public final class UsageException extends RuntimeException
{
    /** Exit code of a refused command line. */
    public static final int EXIT_CODE = 2;

    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong and what is allowed.
     */
    public UsageException(final String message)
    {
        super(message);
    }
}
