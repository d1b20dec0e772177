package io.ringwire.perf.perftest;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * What one side of a perftest run tells the other about its queue pair and buffer in each key
 * exchange (perftest's {@code pingpong_dest} as its socket exchange carries it). On RoCE the GID is
 * the IPv4-mapped address of the device's interface ({@code ::ffff:a.b.c.d}).
 *
 * @param lid             local identifier (16 bits), 0 on RoCE.
 * @param outReads        outstanding RDMA READs the side accepts as responder (16 bits).
 * @param queuePairNumber the queue pair's number (24 bits).
 * @param psn             the first packet sequence number it sends (24 bits).
 * @param rkey            the remote key of the buffer the peer writes into.
 * @param virtualAddress  where in that buffer the peer writes.
 * @param gidHigh         the GID's first eight bytes, big-endian.
 * @param gidLow          the GID's last eight bytes, big-endian.
 * @param srqNumber       shared receive queue number (XRC and DC only; 0 otherwise).
 */
public record PerftestKeys(int lid, int outReads, int queuePairNumber, int psn, int rkey, long virtualAddress,
    long gidHigh, long gidLow, int srqNumber)
{
    /** The high half of every IPv4-mapped GID. */
    public static final long MAPPED_GID_HIGH = 0L;
    /** The {@code ::ffff:} prefix of the low half of an IPv4-mapped GID. */
    private static final long MAPPED_LOW_PREFIX = 0x0000_FFFFL << 32;

    /**
     * Checks the field widths of the exchange message.
     */
    public PerftestKeys
    {
        requireWidth("lid", lid, 0xFFFF);
        requireWidth("out_reads", outReads, 0xFFFF);
        requireWidth("qpn", queuePairNumber, 0xFF_FFFF);
        requireWidth("psn", psn, 0xFF_FFFF);
    }

    /**
     * @param address an IPv4 address.
     * @return the low half of its IPv4-mapped GID, {@code 0000:ffff:a.b.c.d} (the high half is
     *         {@link #MAPPED_GID_HIGH}).
     */
    public static long mappedGidLow(final Inet4Address address)
    {
        final byte[] b = address.getAddress();
        return MAPPED_LOW_PREFIX | (b[0] & 0xFFL) << 24 | (b[1] & 0xFFL) << 16 | (b[2] & 0xFFL) << 8 | b[3] & 0xFFL;
    }

    /**
     * @return whether the GID is IPv4-mapped (perftest refuses a pair whose GID kinds differ).
     */
    public boolean hasIpv4MappedGid()
    {
        return gidHigh == MAPPED_GID_HIGH && (gidLow & 0xFFFF_FFFF_0000_0000L) == MAPPED_LOW_PREFIX;
    }

    /**
     * @return the IPv4 address of an IPv4-mapped GID: where the side's RoCE packets go.
     * @throws PerftestProtocolException when the GID is not IPv4-mapped.
     */
    public Inet4Address ipv4Address()
    {
        if (!hasIpv4MappedGid())
        {
            throw new PerftestProtocolException("the perftest peer's GID " + gidText() +
                " is not IPv4-mapped (::ffff:a.b.c.d); use a RoCEv2 GID index of an IPv4 address (ib_write_lat -x)");
        }
        final int v4 = (int)gidLow;
        try
        {
            return (Inet4Address)InetAddress.getByAddress(new byte[] {
                (byte)(v4 >>> 24), (byte)(v4 >>> 16), (byte)(v4 >>> 8), (byte)v4 });
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException("four bytes are an IPv4 address", ex);
        }
    }

    /**
     * @return the GID as perftest prints it, sixteen hex bytes joined by ':'.
     */
    public String gidText()
    {
        final StringBuilder sb = new StringBuilder(47);
        for (int i = 0; i < 16; i++)
        {
            final long half = i < 8 ? gidHigh : gidLow;
            final int b = (int)(half >>> (56 - 8 * (i & 7))) & 0xFF;
            sb.append(i == 0 ? "" : ":").append(Character.forDigit(b >>> 4, 16)).append(Character.forDigit(b & 0xF, 16));
        }
        return sb.toString();
    }

    private static void requireWidth(final String field, final int value, final int max)
    {
        if (value < 0 || value > max)
        {
            throw new IllegalArgumentException(field + " does not fit perftest's field: 0x" + Integer.toHexString(value) +
                " > 0x" + Integer.toHexString(max));
        }
    }
}
