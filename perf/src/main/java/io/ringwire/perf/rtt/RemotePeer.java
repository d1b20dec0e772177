package io.ringwire.perf.rtt;

import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.config.Settings;

/**
 * What one side of an RDMA ping-pong tells the other: its queue pair's endpoint and where to write
 * (the inbound slot's address, rkey and length). Crosses process boundaries as one line,
 * {@code ENDPOINT qpn psn mtu pkey slotAddress rkey slotLength address}, as the contract tests'
 * echo peer does. The device address comes last and runs to the end of the line, since an shm
 * address holds a directory, which may contain spaces.
 *
 * @param endpoint    the queue pair's endpoint.
 * @param slotAddress virtual address of the inbound slot in the peer's region.
 * @param rkey        the region's remote key.
 * @param slotLength  bytes of the inbound slot.
 */
public record RemotePeer(QueuePairEndpoint endpoint, long slotAddress, int rkey, int slotLength)
{
    /** First word of the line. */
    static final String PREFIX = "ENDPOINT";

    /**
     * @return the line.
     */
    String toLine()
    {
        return PREFIX + " " + endpoint.queuePairNumber() + " " + endpoint.startPsn() + " " + endpoint.mtu() + " " +
            endpoint.partitionKey() + " " + slotAddress + " " + rkey + " " + slotLength + " " + endpoint.address();
    }

    /**
     * @param line as written by {@link #toLine()}.
     * @return the peer.
     * @throws IllegalArgumentException when the line is not an endpoint line.
     */
    static RemotePeer parse(final String line)
    {
        final String[] fields = line.split(" ", 9);
        if (fields.length != 9 || !fields[0].equals(PREFIX) || fields[8].isEmpty())
        {
            throw new IllegalArgumentException("not an endpoint line: '" + line + "'");
        }
        try
        {
            return new RemotePeer(new QueuePairEndpoint(intField("qpn", fields[1]), intField("psn", fields[2]),
                fields[8], intField("mtu", fields[3]), intField("pkey", fields[4])),
                Settings.parseLong("slotAddress", fields[5], Long.MIN_VALUE, Long.MAX_VALUE, "a whole number"),
                intField("rkey", fields[6]), intField("slotLength", fields[7]));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("not an endpoint line: '" + line + "'", ex);
        }
    }

    private static int intField(final String name, final String value)
    {
        return Settings.parseInt(name, value, Integer.MIN_VALUE, Integer.MAX_VALUE, "a whole number");
    }
}
