package io.ringwire.exchange.node;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class LoopbackPortsTest
{
    private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

    @Test
    void picksDistinctBindablePortsBelowTheKernelsEphemeralRange() throws Exception
    {
        assumeTrue(Files.exists(RANGE), "a Linux host");
        final String[] range = Files.readAllLines(RANGE).get(0).trim().split("\\s+");
        final int start = Integer.parseInt(range[0]);
        assumeTrue(start > LoopbackPorts.LOWEST_PORT + 1_000, "room below the range " + Arrays.toString(range));

        final int[] ports = LoopbackPorts.pick(20);

        assertDistinct(ports);
        for (final int port : ports)
        {
            assertTrue(port >= LoopbackPorts.LOWEST_PORT && port < start,
                port + " is not between " + LoopbackPorts.LOWEST_PORT + " and the ephemeral range's start " + start);
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress()))
            {
                assertEquals(port, socket.getLocalPort()); // released after the look: a role can bind it
            }
        }
    }

    @Test
    void picksAboveTheRangeWhereThereIsNoRoomBelowIt()
    {
        final int[] ports = LoopbackPorts.pick(10, 1_024, 60_999);

        assertDistinct(ports);
        assertTrue(IntStream.of(ports).allMatch(port -> port > 60_999 && port <= 65_535), Arrays.toString(ports));
    }

    @Test
    void letsTheKernelChooseWhereNeitherSideHasRoom()
    {
        final int[] ports = LoopbackPorts.pick(3, 1_024, 65_535);

        assertDistinct(ports);
        assertTrue(IntStream.of(ports).allMatch(port -> port > 0), Arrays.toString(ports));
    }

    @Test
    void neverHandsOutAPortTwiceAlthoughEachCallReleasesItsPorts()
    {
        // Three ports below the range and none above: released by the first call, the same three
        // would be the second call's only choice below the range.
        final int[] first = LoopbackPorts.pick(3, LoopbackPorts.LOWEST_PORT + 3, 65_535);
        final int[] second = LoopbackPorts.pick(3, LoopbackPorts.LOWEST_PORT + 3, 65_535);

        assertDistinct(IntStream.concat(IntStream.of(first), IntStream.of(second)).toArray());
    }

    private static void assertDistinct(final int[] ports)
    {
        assertEquals(ports.length, IntStream.of(ports).distinct().count(), "distinct: " + Arrays.toString(ports));
    }
}
