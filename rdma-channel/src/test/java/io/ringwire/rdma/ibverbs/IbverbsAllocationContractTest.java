package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.contract.AllocationContractTest;
import org.junit.jupiter.api.Tag;

import java.nio.file.Path;

/**
 * Zero allocation on the hot path of {@code ibverbs} with a real device: tagged {@code vm} (set
 * {@code ringwire.test.allocation.roundTrips} lower under TCG emulation).
 */
@Tag("vm")
class IbverbsAllocationContractTest extends AllocationContractTest
{
    @Override
    protected RdmaConfig config(final Path tempDir)
    {
        return new RdmaConfig().provider("ibverbs");
    }
}
