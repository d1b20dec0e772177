package io.ringwire.messaging.protocol;

/**
 * The JOIN message, the first request on every new publication connection: a SEND of the stream
 * position the subscriber's image starts at (little-endian long at offset 0) and the connection's
 * number (little-endian int at offset 8: the publication numbers each connection to a destination,
 * never 0, so that a memory log's image can name its own connection in its closed mark, see
 * {@link CreditLayout#closedMark}). Every receive a
 * subscription posts points at an image's join buffer of {@link #REGION_LENGTH} bytes (frames are
 * RDMA WRITEs WITH IMMEDIATE, which consume a receive without placing data in it).
 */
public final class JoinLayout
{
    /** Offset of the stream position the subscriber's image starts at. */
    public static final int POSITION_OFFSET = 0;
    /** Offset of the connection's number. */
    public static final int CONNECTION_OFFSET = 8;
    /** Bytes of the JOIN message. */
    public static final int LENGTH = 12;
    /** Bytes of the region a JOIN is sent from and received into (registered regions are at least this big). */
    public static final int REGION_LENGTH = 64;

    private JoinLayout()
    {
    }
}
