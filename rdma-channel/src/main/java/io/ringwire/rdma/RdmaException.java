package io.ringwire.rdma;

import java.io.Serial;

/**
 * A failure off the hot path (opening, registering, creating, connecting), with a message that says
 * what to change. Hot-path failures are return codes and completion statuses, never this.
 */
public class RdmaException extends RuntimeException
{
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed and what to do about it.
     */
    public RdmaException(final String message)
    {
        super(message);
    }

    /**
     * @param message what failed and what to do about it.
     * @param cause   the underlying failure.
     */
    public RdmaException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
