package io.ringwire.rdma.contract;

import io.ringwire.rdma.RdmaConfig;

import java.nio.file.Path;

/**
 * The connection manager on {@code shm}, in a fresh directory.
 */
class ShmConnectionManagerContractTest extends ConnectionManagerContractTest
{
    @Override
    protected RdmaConfig config(final Path tempDir)
    {
        return new RdmaConfig().provider("shm").shmDirectory(tempDir.toString());
    }
}
