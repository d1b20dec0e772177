package io.ringwire.rdma.socket;

import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.config.EndpointAddress;
import io.ringwire.rdma.socket.SocketEnds.End;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A socket device advertises the address its peers connect to: an IPv6 one in brackets, so that
 * its port can be told from the address, and never the wildcard address, which names no host to a
 * peer.
 */
class SocketDeviceAddressTest
{
    private final SocketEnds ends = new SocketEnds();

    @AfterEach
    void close()
    {
        ends.close();
    }

    @Test
    void devicesOnTheIpv6LoopbackAdvertiseAddressesTheirPeersConnectTo()
    {
        final End a = ends.open(10_000, "[::1]:0");
        final End b = ends.open(10_000, "[::1]:0");
        final InetSocketAddress advertised = EndpointAddress.resolve("address", a.device().address());
        assertTrue(advertised.getAddress().isLoopbackAddress() && advertised.getPort() > 0, a.device().address());

        a.first().modifyToReadyToReceive(b.first().localEndpoint());
        b.first().modifyToReadyToReceive(a.first().localEndpoint());
        a.first().modifyToReadyToSend();
        b.first().modifyToReadyToSend();
        SocketEnds.assertWriteArrives(a, a.first(), b, b.first());
    }

    @Test
    void theWildcardAddressIsRefusedNamingTheSetting()
    {
        for (final String wildcard : new String[]{ "0.0.0.0:0", "[::]:0" })
        {
            final RdmaException refused = assertThrows(RdmaException.class, () -> RdmaProviders.open(
                new RdmaConfig().provider("socket").bindAddress(wildcard).conclude()).close());
            assertTrue(refused.getMessage().contains(RdmaConfig.BIND_ADDRESS_PROP) &&
                refused.getMessage().contains("wildcard"), refused.getMessage());
        }
        assertEquals("[::1]:7", new EndpointAddress("::1", 7).toString());
    }

    @Test
    void aDeviceThatCannotListenOnItsPortLeavesNoSocketOpen() throws IOException
    {
        final End taken = ends.open();
        final String busy = taken.device().address();
        final long before = openDescriptors();
        for (int i = 0; i < 50; i++)
        {
            final RdmaException refused = assertThrows(RdmaException.class, () -> RdmaProviders.open(
                new RdmaConfig().provider("socket").bindAddress(busy).conclude()).close());
            assertTrue(refused.getMessage().contains("cannot listen"), refused.getMessage());
        }
        assertTrue(openDescriptors() < before + 10, "descriptors " + before + " -> " + openDescriptors());
    }

    private static long openDescriptors() throws IOException
    {
        try (Stream<Path> descriptors = Files.list(Path.of("/proc/self/fd")))
        {
            return descriptors.count();
        }
    }
}
