package io.ringwire.rdma.roce;

import io.ringwire.rdma.RdmaConfig;
import org.junit.jupiter.api.Test;

import java.nio.channels.DatagramChannel;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A device that fails part-way through opening gives back what it had opened: the caller never
 * gets a reference to close, and a packet socket left in the port's fan-out group would take the
 * packets of the next device on that port.
 */
class RoceDeviceOpenFailureTest
{
    private static RdmaConfig config(final int port)
    {
        return new RdmaConfig().provider("roce").bindAddress("127.0.0.1:" + port).conclude();
    }

    @Test
    void aDeviceWhoseReceiveBufferCannotBeAllocatedClosesItsSocketsAndFreesItsPort()
    {
        final RoceSettings settings = new RoceSettings(true, RoceSettings.ICRC_AUTO);
        final AtomicReference<DatagramChannel> channel = new AtomicReference<>();
        final AtomicReference<RawUdpReceiver> raw = new AtomicReference<>();
        final AtomicInteger port = new AtomicInteger();
        // What RoceReceiver's direct receive buffer throws when direct memory is exhausted.
        final OutOfMemoryError exhausted = new OutOfMemoryError("Cannot reserve 65600 bytes of direct buffer memory");

        final OutOfMemoryError thrown = assertThrows(OutOfMemoryError.class, () -> new RoceDevice(config(0), settings,
            (udp, headers, local, localPort, queuePairs, counters) ->
            {
                channel.set(udp);
                raw.set(headers);
                port.set(localPort);
                throw exhausted;
            }));

        assertSame(exhausted, thrown, "the failure itself reaches the caller");
        assertFalse(channel.get().isOpen(), "the UDP socket is closed");
        if (null != raw.get()) // a packet socket where this process may open one (CAP_NET_RAW), else none
        {
            assertTrue(raw.get().isClosed(), "the packet socket, its ring and its fan-out place are given back");
        }
        try (RoceDevice again = new RoceDevice(config(port.get()), settings))
        {
            assertEquals("127.0.0.1:" + port.get(), again.address(), "the next device binds the same port");
        }
    }
}
