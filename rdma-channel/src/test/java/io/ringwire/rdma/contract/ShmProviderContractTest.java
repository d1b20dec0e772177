package io.ringwire.rdma.contract;

import io.ringwire.rdma.RdmaConfig;

import java.nio.file.Path;

/**
 * The provider contract on {@code shm}, in a fresh directory.
 */
class ShmProviderContractTest extends ProviderContractTest
{
    @Override
    protected RdmaConfig config(final Path tempDir)
    {
        return new RdmaConfig().provider("shm").shmDirectory(tempDir.toString());
    }
}
