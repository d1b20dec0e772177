package io.ringwire.rdma.contract;

import io.ringwire.rdma.RdmaConfig;

import java.nio.file.Path;

/**
 * The connection manager on {@code roce}, over loopback UDP.
 */
class RoceConnectionManagerContractTest extends ConnectionManagerContractTest
{
    @Override
    protected RdmaConfig config(final Path tempDir)
    {
        return new RdmaConfig().provider("roce").bindAddress("127.0.0.1:0");
    }
}
