package io.ringwire.rdma.ibverbs;

import org.opentest4j.TestAbortedException;

import io.ringwire.rdma.RdmaConfig;

/**
 * Points the {@code ibverbs} provider that {@link io.ringwire.rdma.RdmaProviders} finds at the fake
 * libibverbs, for the contract suites (which open devices by configuration only), and back.
 */
final class FakeContract
{
    private FakeContract()
    {
    }

    /**
     * @return a configuration of provider ibverbs, with {@link IbverbsProvider#LIBRARY_PROP} set to the fake.
     */
    static RdmaConfig config()
    {
        try
        {
            System.setProperty(IbverbsProvider.LIBRARY_PROP, FakeVerbs.library());
        }
        catch (final TestAbortedException ex)
        {
            throw ex; // no gcc or verbs.h here: the test is skipped with what to install
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException("cannot build the fake libibverbs", ex);
        }
        return new RdmaConfig().provider("ibverbs");
    }

    /**
     * Removes the property, so later tests in this JVM see the real library.
     */
    static void restore()
    {
        System.clearProperty(IbverbsProvider.LIBRARY_PROP);
    }
}
