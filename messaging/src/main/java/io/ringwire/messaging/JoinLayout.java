package io.ringwire.messaging;

/**
 * The JOIN message, the first request on every new publication connection: a SEND of the stream
 * position the subscriber's image starts at (little-endian long at offset 0). Every receive a
 * subscription posts points at an image's join buffer of {@link #REGION_LENGTH} bytes (frames are
 * RDMA WRITEs WITH IMMEDIATE, which consume a receive without placing data in it).
 */
final class JoinLayout
{
    static final int POSITION_OFFSET = 0;
    static final int LENGTH = 8;
    static final int REGION_LENGTH = 64;

    private JoinLayout()
    {
    }
}
