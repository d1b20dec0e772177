package io.ringwire.exchange.node;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LoopbackPortsTest
{
    @Test
    void picksDistinctBindablePortsBelowTheKernelsEphemeralRange() throws Exception
    {
        final int ephemeralStart = Integer.parseInt(
            Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim().split("\\s+")[0]);
        final int[] ports = LoopbackPorts.pick(20);

        assertEquals(20, Arrays.stream(ports).distinct().count(), "distinct: " + Arrays.toString(ports));
        for (final int port : ports)
        {
            assertTrue(port >= 10_000 && port < ephemeralStart,
                port + " is not between 10000 and the ephemeral range's start " + ephemeralStart);
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress()))
            {
                assertEquals(port, socket.getLocalPort()); // released after the look: a role can bind it
            }
        }
    }
}
