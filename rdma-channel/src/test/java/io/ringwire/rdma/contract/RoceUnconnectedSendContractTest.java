package io.ringwire.rdma.contract;

import io.ringwire.rdma.RdmaConfig;

import java.nio.file.Path;

/**
 * The provider contract on {@code roce} with unconnected sends (IP ID 0): the fallback where a
 * connected socket's IP IDs cannot be learnt, and the setting for those who choose it.
 */
class RoceUnconnectedSendContractTest extends ProviderContractTest
{
    @Override
    protected RdmaConfig config(final Path tempDir)
    {
        return new RdmaConfig().provider("roce").bindAddress("127.0.0.1:0").roceConnectedSend(false);
    }
}
