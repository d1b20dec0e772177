package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.RdmaConfig;
import org.junit.jupiter.api.AfterAll;

/**
 * Refused requests on {@code ibverbs} over the fake libibverbs.
 */
class IbverbsFakeRefusedRequestsTest extends IbverbsRefusedRequestsTest
{
    @Override
    protected RdmaConfig config()
    {
        return FakeContract.config();
    }

    @AfterAll
    static void restoreLibrary()
    {
        FakeContract.restore();
    }
}
