package io.ringwire.messaging;

import io.ringwire.rdma.config.EndpointAddress;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;

/**
 * Chooses the local address a channel's data path binds: the channel's {@code interface=}
 * parameter, else the address the kernel would route to the endpoint from (a connected UDP socket
 * tells it without sending anything). Network providers (roce in particular, whose ICRC covers
 * the source address) need a concrete one.
 */
final class LocalAddresses
{
    private LocalAddresses()
    {
    }

    /** "host:0", an IPv6 host in brackets, as the device's bind address is read. */
    private static String anyPort(final InetAddress address)
    {
        return new EndpointAddress(address.getHostAddress(), 0).toString();
    }

    /**
     * @param channel  the channel.
     * @param endpoint the subscriber endpoint (a subscription's own, a publication's target).
     * @param local    true when the endpoint is this process's own (a subscription).
     * @return "ip:0" to bind.
     */
    static String bindAddressFor(final ChannelUri channel, final InetSocketAddress endpoint, final boolean local)
    {
        final String configured = channel.get("interface");
        if (null != configured)
        {
            return configured.contains(":") ? configured : configured + ":0";
        }
        if (endpoint.isUnresolved())
        {
            throw new IllegalArgumentException("channel " + channel + ": cannot resolve endpoint " + endpoint);
        }
        if (local && !endpoint.getAddress().isAnyLocalAddress())
        {
            return anyPort(endpoint.getAddress());
        }
        try (DatagramChannel probe = DatagramChannel.open())
        {
            // Connecting a UDP socket sends nothing; it only asks the kernel which source it would use.
            probe.connect(new InetSocketAddress(endpoint.getAddress(), endpoint.getPort() == 0 ? 9 : endpoint.getPort()));
            return anyPort(((InetSocketAddress)probe.getLocalAddress()).getAddress());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("channel " + channel + ": no route to " + endpoint, ex);
        }
    }
}
