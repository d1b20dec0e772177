package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.contract.AllocationContractTest;
import org.junit.jupiter.api.AfterAll;

import java.nio.file.Path;

/**
 * Zero allocation on the hot path of {@code ibverbs} (posts through the driver's function pointers,
 * polls into native work completions), over the fake libibverbs.
 */
class IbverbsFakeAllocationContractTest extends AllocationContractTest
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
