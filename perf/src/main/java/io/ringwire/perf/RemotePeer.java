package io.ringwire.perf;

import io.ringwire.rdma.QueuePairEndpoint;

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
record RemotePeer(QueuePairEndpoint endpoint, long slotAddress, int rkey, int slotLength)
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
            return new RemotePeer(new QueuePairEndpoint(Integer.parseInt(fields[1]), Integer.parseInt(fields[2]),
                fields[8], Integer.parseInt(fields[3]), Integer.parseInt(fields[4])), Long.parseLong(fields[5]),
                Integer.parseInt(fields[6]), Integer.parseInt(fields[7]));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("not an endpoint line: '" + line + "'", ex);
        }
    }
}
