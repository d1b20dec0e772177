package io.ringwire.rdma.contract;

import io.ringwire.rdma.RdmaConfig;

import java.nio.file.Path;

/**
 * Zero allocation on the hot path on {@code shm}, in a fresh directory.
 */
class ShmAllocationContractTest extends AllocationContractTest
{
    @Override
    protected RdmaConfig config(final Path tempDir)
    {
        return new RdmaConfig().provider("shm").shmDirectory(tempDir.toString());
    }
}
