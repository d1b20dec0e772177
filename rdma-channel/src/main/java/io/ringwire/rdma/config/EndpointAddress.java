package io.ringwire.rdma.config;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * A {@code host:port} (or {@code host}, where the port may be left out) as settings, channels and
 * connection managers write it; IPv6 literals take brackets, {@code [::1]:40123}. Parsing resolves
 * nothing: the caller decides when a name becomes an address.
 *
 * @param host the host name or literal, without brackets.
 * @param port the port, 0 to 65535; 0 where the text gave none and the caller allowed that.
 */
public record EndpointAddress(String host, int port)
{
    /**
     * Parses {@code host:port}.
     *
     * @param name     the setting, as the message names it.
     * @param value    as given.
     * @param portless whether the port may be left out (it is then 0).
     * @return the address.
     * @throws IllegalArgumentException naming the setting, the value and the expected form.
     */
    public static EndpointAddress parse(final String name, final String value, final boolean portless)
    {
        final String expected = portless ? "host or host:port ([v6]:port)" : "host:port ([v6]:port)";
        final String text = null == value ? "" : value.trim();
        final int colon = text.lastIndexOf(':');
        // Bare IPv6 literals have several colons; only a bracketed one may carry a port.
        final boolean hasPort = colon >= 0 && (text.indexOf(':') == colon || text.charAt(colon - 1) == ']');
        String host = hasPort ? text.substring(0, colon) : text;
        if (host.startsWith("[") && host.endsWith("]"))
        {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty() || (!hasPort && !portless))
        {
            throw Settings.invalid(name, value, "must be " + expected, expected);
        }
        return new EndpointAddress(host, hasPort ? parsePort(name, value, text.substring(colon + 1)) : 0);
    }

    /**
     * Parses {@code host:port} and resolves the host, for addresses a peer advertised.
     *
     * @param name  what the address is, as the message names it (e.g. "roce device address").
     * @param value as given.
     * @return the resolved socket address.
     * @throws IllegalArgumentException when it is not {@code host:port} or the host does not resolve.
     */
    public static InetSocketAddress resolve(final String name, final String value)
    {
        final EndpointAddress parsed = parse(name, value, false);
        try
        {
            return new InetSocketAddress(InetAddress.getByName(parsed.host()), parsed.port());
        }
        catch (final UnknownHostException ex)
        {
            throw Settings.invalid(name, value, "names a host that does not resolve", "host:port ([v6]:port)");
        }
    }

    private static int parsePort(final String name, final String value, final String portText)
    {
        final int port;
        try
        {
            port = Integer.parseInt(portText);
        }
        catch (final NumberFormatException ex)
        {
            throw Settings.invalid(name, value, "has port '" + portText + "', which is not a number", "a port 0 to 65535");
        }
        if (port < 0 || port > 65535)
        {
            throw Settings.invalid(name, value, "has port " + port + ", which is out of range", "a port 0 to 65535");
        }
        return port;
    }

    @Override
    public String toString()
    {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
