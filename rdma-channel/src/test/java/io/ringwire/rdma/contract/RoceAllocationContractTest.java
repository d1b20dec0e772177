package io.ringwire.rdma.contract;

import io.ringwire.rdma.RdmaConfig;

import java.nio.file.Path;

/**
 * Zero allocation on the hot path on {@code roce}, over loopback UDP.
 */
class RoceAllocationContractTest extends AllocationContractTest
{
    @Override
    protected RdmaConfig config(final Path tempDir)
    {
        return new RdmaConfig().provider("roce").bindAddress("127.0.0.1:0");
    }
}
