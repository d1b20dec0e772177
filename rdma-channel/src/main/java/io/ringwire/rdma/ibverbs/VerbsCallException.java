package io.ringwire.rdma.ibverbs;

import java.io.Serial;

/**
 * A libibverbs control-path call failed: which function, and the errno it reported. Thrown by
 * {@link Verbs} and turned into an {@link io.ringwire.rdma.RdmaException} that says what to do by
 * the caller, which knows the context (sizes, limits, names).
 */
final class VerbsCallException extends RuntimeException
{
    @Serial
    private static final long serialVersionUID = 1L;

    private final int errno;

    /**
     * @param function the libibverbs function, e.g. "ibv_reg_mr", for the message.
     * @param errno    the errno value it reported.
     */
    VerbsCallException(final String function, final int errno)
    {
        super(function + " failed: " + Errno.describe(errno));
        this.errno = errno;
    }

    /**
     * @return the errno value (positive), 0 when the library set none.
     */
    int errno()
    {
        return errno;
    }
}
