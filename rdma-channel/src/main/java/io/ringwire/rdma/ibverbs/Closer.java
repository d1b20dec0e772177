package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.RdmaException;

import java.util.List;

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
     * Closes a parent object: its children first, each list in order, then its native object, which
     * verbs refuses to release while a child still uses it.
     *
     * @param first   children to close first.
     * @param second  children to close next.
     * @param release the verbs call that releases the parent's native object.
     * @param call    the call and its object, for the message, e.g. "ibv_dealloc_pd on rxe0".
     * @param hint    appended to the message when the release fails, or "".
     * @return the first failure with the others suppressed, or null.
     */
    static RuntimeException closeParent(final List<? extends AutoCloseable> first,
        final List<? extends AutoCloseable> second, final Runnable release, final String call, final String hint)
    {
        RuntimeException failure = closeAll(second, closeAll(first, null));
        try
        {
            release.run();
        }
        catch (final VerbsCallException ex)
        {
            failure = add(failure, new RdmaException(call + ": " + ex.getMessage() + hint, ex));
        }
        return failure;
    }

    /**
     * Closes each resource, from a copy of the list: closing one removes it from the list.
     *
     * @param resources to close, in order.
     * @param failure   the failure so far, or null.
     * @return the failure so far, with those of these resources added.
     */
    static RuntimeException closeAll(final List<? extends AutoCloseable> resources, final RuntimeException failure)
    {
        RuntimeException failures = failure;
        for (final AutoCloseable resource : List.copyOf(resources))
        {
            failures = close(resource, failures);
        }
        return failures;
    }

    /**
     * @param failure the failure of a close, or null.
     * @throws RuntimeException the failure, when there is one.
     */
    static void throwIfAny(final RuntimeException failure)
    {
        if (null != failure)
        {
            throw failure;
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
