package io.ringwire.rdma;

import java.util.Objects;

/**
 * What one side of a connection tells the other so the two queue pairs can reach each other: the
 * content of the connection manager's REQ and REP, minus the advertised regions.
 *
 * @param queuePairNumber      the queue pair's number (24 bits).
 * @param startPsn             the first packet sequence number it will send (24 bits).
 * @param address              the device's {@link Device#address()}.
 * @param mtu                  path MTU in bytes: one of the MTUs a path has, 256 to 4096, a power of two.
 * @param partitionKey         P_Key (16 bits, default 0xFFFF).
 */
public record QueuePairEndpoint(int queuePairNumber, int startPsn, String address, int mtu, int partitionKey)
{
    /** The default partition key. */
    public static final int DEFAULT_PARTITION_KEY = 0xFFFF;
    /** Mask of 24-bit fields. */
    public static final int MASK_24 = 0xFF_FFFF;

    /**
     * Validates the values.
     */
    public QueuePairEndpoint
    {
        Objects.requireNonNull(address, "address");
        if ((queuePairNumber & ~MASK_24) != 0 || (startPsn & ~MASK_24) != 0)
        {
            throw new IllegalArgumentException("queue pair number and PSN are 24-bit: qpn=0x" +
                Integer.toHexString(queuePairNumber) + " psn=0x" + Integer.toHexString(startPsn));
        }
        if ((partitionKey & ~0xFFFF) != 0)
        {
            throw new IllegalArgumentException("P_Key is 16-bit: 0x" + Integer.toHexString(partitionKey));
        }
        if (mtu < 256 || mtu > 4096 || Integer.bitCount(mtu) != 1)
        {
            throw new IllegalArgumentException("mtu must be 256, 512, 1024, 2048 or 4096: " + mtu);
        }
    }
}
