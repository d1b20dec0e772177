package io.ringwire.rdma.contract;

import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.roce.RoceProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.nio.file.Path;

/**
 * The provider contract on {@code roce} with unconnected sends (IP ID 0): the fallback where a
 * connected socket's IP IDs cannot be learnt, and the setting for those who choose it
 * ({@value RoceProvider#CONNECTED_SEND_PROP}, read when each device opens).
 */
class RoceUnconnectedSendContractTest extends ProviderContractTest
{
    private static String previous;

    @BeforeAll
    static void sendUnconnected()
    {
        previous = System.setProperty(RoceProvider.CONNECTED_SEND_PROP, "false");
    }

    @AfterAll
    static void restoreSending()
    {
        if (null == previous)
        {
            System.clearProperty(RoceProvider.CONNECTED_SEND_PROP);
        }
        else
        {
            System.setProperty(RoceProvider.CONNECTED_SEND_PROP, previous);
        }
    }

    @Override
    protected RdmaConfig config(final Path tempDir)
    {
        return new RdmaConfig().provider("roce").bindAddress("127.0.0.1:0");
    }
}
