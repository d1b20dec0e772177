package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.RdmaException;

/**
 * Closes several resources and keeps going when one fails, so a device or domain releases all it
 * can and then reports the first failure (with the others suppressed). Control path.
 */
final class Closer
{
    private Closer()
    {
    }

    /**
     * @param closeable to close.
     * @param failure   the failure so far, or null.
     * @return the failure so far, with this one added.
     */
    static RuntimeException close(final AutoCloseable closeable, final RuntimeException failure)
    {
        try
        {
            closeable.close();
            return failure;
        }
        catch (final Exception ex)
        {
            return add(failure, ex instanceof RuntimeException runtime ? runtime : new RdmaException(ex.getMessage(), ex));
        }
    }

    /**
     * @param failure the failure so far, or null.
     * @param next    another one.
     * @return the first, with the next suppressed in it.
     */
    static RuntimeException add(final RuntimeException failure, final RuntimeException next)
    {
        if (null == failure)
        {
            return next;
        }
        failure.addSuppressed(next);
        return failure;
    }
}
