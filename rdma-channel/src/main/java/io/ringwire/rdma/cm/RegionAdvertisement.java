package io.ringwire.rdma.cm;

import io.ringwire.rdma.MemoryRegion;

import java.util.Objects;

/**
 * A memory region one side advertises to its peer in REQ or REP, so the peer can target it with
 * one-sided RDMA WRITEs: remote addresses in {@code [address, address + length)} with this rkey.
 *
 * <p>Immutable, safe to share between threads.
 *
 * @param address virtual address of the region's first byte, as the peer must use it.
 * @param rkey    the region's remote key.
 * @param length  length in bytes, &gt;= 0.
 */
public record RegionAdvertisement(long address, int rkey, int length)
{
    /**
     * Validates the values.
     *
     * @throws IllegalArgumentException when {@code length} is negative.
     */
    public RegionAdvertisement
    {
        if (length < 0)
        {
            throw new IllegalArgumentException("advertised region length must be >= 0: " + length +
                " (address 0x" + Long.toHexString(address) + ", rkey 0x" + Integer.toHexString(rkey) + ")");
        }
    }

    /**
     * Advertises the whole of a registered region.
     *
     * @param region a registered memory region (its accessors are safe from any thread).
     * @return its address, rkey and length.
     */
    public static RegionAdvertisement of(final MemoryRegion region)
    {
        Objects.requireNonNull(region, "region");
        return new RegionAdvertisement(region.address(), region.rkey(), region.length());
    }

    @Override
    public String toString()
    {
        return "RegionAdvertisement{address=0x" + Long.toHexString(address) + ", rkey=0x" +
            Integer.toHexString(rkey) + ", length=" + length + '}';
    }
}
