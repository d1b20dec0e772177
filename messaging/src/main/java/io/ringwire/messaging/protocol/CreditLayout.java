package io.ringwire.messaging.protocol;

/**
 * The publication's credit region, written only by the subscriber with one-sided RDMA WRITEs and
 * read only locally by the publication (no remote read on the hot path):
 *
 * <pre>
 *   0: long consumed position (the subscriber's read position in the stream)
 *   8: long subscriber liveness counter (incremented with every credit write, heartbeat or not)
 *  16: long receives posted: receive requests the subscriber has posted on this connection so far
 * </pre>
 *
 * All three are written in one 24-byte write; the publication reads them with acquire loads.
 *
 * <p>Receive credit: every WRITE WITH IMMEDIATE (one per frame, padding and heartbeats included)
 * and the JOIN send consume one posted receive at the subscriber. A request arriving when none is
 * posted is refused by the responder (an RNR NAK on a NIC: the requester waits and retries, the
 * stream stalls). So a publication sends a destination at most "receives posted" such requests in
 * total, counting from {@link #INITIAL_RECEIVES} (posted before the connection completes), and
 * backs off otherwise, as it does when the ring is full.
 */
public final class CreditLayout
{
    /** Offset of the subscriber's consumed stream position. */
    public static final int CONSUMED_POSITION_OFFSET = 0;
    /** Offset of the subscriber's liveness counter. */
    public static final int LIVENESS_COUNTER_OFFSET = 8;
    /** Offset of the count of receives the subscriber has posted on this connection. */
    public static final int RECEIVES_POSTED_OFFSET = 16;
    /** Bytes of one credit write. */
    public static final int LENGTH = 24;
    /** Receives a subscription posts for a new publication before it completes the connection. */
    public static final int INITIAL_RECEIVES = 256;
    /** Registered regions are at least this big. */
    public static final int REGION_LENGTH = 64;

    private CreditLayout()
    {
    }
}
