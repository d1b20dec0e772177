package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.RdmaException;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Converts between a RoCEv2 GID and the device address peers exchange ({@code Device.address()},
 * carried by the connection manager). A RoCEv2 GID is the IP address of the port's network
 * interface: an IPv4 address appears as the IPv4-mapped IPv6 address {@code ::ffff:a.b.c.d}.
 *
 * <p>The address format is the {@code roce} provider's, {@code "a.b.c.d:4791"} ({@code "[v6]:4791"}
 * for an IPv6 GID), so an ibverbs endpoint and a roce endpoint can connect. Reading an address, the
 * port is ignored: RoCEv2 always uses UDP port 4791.
 */
final class GidAddress
{
    /** Bytes of a GID. */
    static final int LENGTH = 16;

    private GidAddress()
    {
    }

    /**
     * @param gid 16 bytes.
     * @return true when the GID is {@code ::ffff:a.b.c.d}.
     */
    static boolean isIpv4Mapped(final byte[] gid)
    {
        for (int i = 0; i < 10; i++)
        {
            if (gid[i] != 0)
            {
                return false;
            }
        }
        return gid[10] == (byte)0xFF && gid[11] == (byte)0xFF;
    }

    /**
     * @param gid 16 bytes.
     * @return true when every byte is 0 (an unused GID table entry).
     */
    static boolean isZero(final byte[] gid)
    {
        for (final byte b : gid)
        {
            if (b != 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @param gid 16 bytes.
     * @return the device address: "a.b.c.d:4791" for an IPv4-mapped GID, else "[ipv6]:4791".
     */
    static String toAddress(final byte[] gid)
    {
        return hostOf(gid) + ":" + VerbsValues.ROCE_V2_PORT;
    }

    /**
     * @param gid 16 bytes.
     * @return "a.b.c.d" for an IPv4-mapped GID, else the bracketed IPv6 text.
     */
    static String hostOf(final byte[] gid)
    {
        if (isIpv4Mapped(gid))
        {
            return (gid[12] & 0xFF) + "." + (gid[13] & 0xFF) + "." + (gid[14] & 0xFF) + "." + (gid[15] & 0xFF);
        }
        try
        {
            return "[" + Inet6Address.getByAddress(null, gid, -1).getHostAddress() + "]";
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("a GID has 16 bytes, got " + gid.length, ex);
        }
    }

    /**
     * @param gid 16 bytes.
     * @return the form sysfs and {@code show_gids} print: eight groups of four hex digits.
     */
    static String format(final byte[] gid)
    {
        final StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < LENGTH; i += 2)
        {
            if (i > 0)
            {
                sb.append(':');
            }
            sb.append(String.format("%02x%02x", gid[i] & 0xFF, gid[i + 1] & 0xFF));
        }
        return sb.toString();
    }

    /**
     * Parses a peer's device address into the GID to use as the RTR destination.
     *
     * @param address "a.b.c.d:port", "[v6]:port", or either without a port.
     * @return 16 bytes.
     * @throws RdmaException when the host part is not an IP literal.
     */
    static byte[] fromAddress(final String address)
    {
        String host = address.trim();
        if (host.startsWith("["))
        {
            final int close = host.indexOf(']');
            if (close < 0)
            {
                throw notAnAddress(address, null);
            }
            host = host.substring(1, close);
        }
        else
        {
            final int colon = host.indexOf(':');
            if (colon >= 0 && colon == host.lastIndexOf(':'))
            {
                host = host.substring(0, colon);
            }
        }
        final InetAddress parsed;
        try
        {
            parsed = InetAddress.ofLiteral(host);
        }
        catch (final IllegalArgumentException ex)
        {
            throw notAnAddress(address, ex);
        }
        final byte[] gid = new byte[LENGTH];
        if (parsed instanceof Inet4Address)
        {
            gid[10] = (byte)0xFF;
            gid[11] = (byte)0xFF;
            System.arraycopy(parsed.getAddress(), 0, gid, 12, 4);
        }
        else
        {
            System.arraycopy(parsed.getAddress(), 0, gid, 0, LENGTH);
        }
        return gid;
    }

    private static RdmaException notAnAddress(final String address, final Throwable cause)
    {
        return new RdmaException("'" + address + "' is not a RoCE device address: expected a.b.c.d:4791 (the peer's " +
            "Device.address(), an IPv4 literal) or [ipv6]:4791", cause);
    }
}
