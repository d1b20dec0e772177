package io.ringwire.rdma.contract;

import io.ringwire.rdma.RdmaConfig;

import java.nio.file.Path;

/**
 * The connection manager on {@code socket} queue pairs.
 */
class SocketConnectionManagerContractTest extends ConnectionManagerContractTest
{
    @Override
    protected RdmaConfig config(final Path tempDir)
    {
        return new RdmaConfig().provider("socket").bindAddress("127.0.0.1:0");
    }
}
