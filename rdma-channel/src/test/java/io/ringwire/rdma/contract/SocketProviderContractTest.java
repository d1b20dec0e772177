package io.ringwire.rdma.contract;

import io.ringwire.rdma.RdmaConfig;

import java.nio.file.Path;

/**
 * The provider contract on {@code socket}, over loopback TCP.
 */
class SocketProviderContractTest extends ProviderContractTest
{
    @Override
    protected RdmaConfig config(final Path tempDir)
    {
        return new RdmaConfig().provider("socket").bindAddress("127.0.0.1:0").peerTimeoutMs(2000);
    }
}
