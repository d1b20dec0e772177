package io.ringwire.rdma.contract;

import io.ringwire.rdma.RdmaConfig;

import java.nio.file.Path;

/**
 * Zero allocation on the hot path of {@code socket}.
 */
class SocketAllocationContractTest extends AllocationContractTest
{
    @Override
    protected RdmaConfig config(final Path tempDir)
    {
        return new RdmaConfig().provider("socket").bindAddress("127.0.0.1:0");
    }
}
