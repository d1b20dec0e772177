package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.contract.ConnectionManagerContractTest;
import org.junit.jupiter.api.AfterAll;

import java.nio.file.Path;

/**
 * The connection manager driving {@code ibverbs} queue pairs, over the fake libibverbs.
 */
class IbverbsFakeConnectionManagerContractTest extends ConnectionManagerContractTest
{
    @Override
    protected RdmaConfig config(final Path tempDir)
    {
        return FakeContract.config();
    }

    @AfterAll
    static void restoreLibrary()
    {
        FakeContract.restore();
    }
}
