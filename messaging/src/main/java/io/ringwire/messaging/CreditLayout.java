package io.ringwire.messaging;

/**
 * The publication's credit region, written only by the subscriber with one-sided RDMA WRITEs and
 * read only locally by the publication (no remote read on the hot path):
 *
 * <pre>
 *   0: long consumed position (the subscriber's read position in the stream)
 *   8: long subscriber liveness counter (incremented with every credit write, heartbeat or not)
 * </pre>
 *
 * Both are written in one 16-byte write; the publication reads them with acquire loads.
 */
final class CreditLayout
{
    static final int CONSUMED_POSITION_OFFSET = 0;
    static final int LIVENESS_COUNTER_OFFSET = 8;
    static final int LENGTH = 16;
    /** Registered regions are at least this big. */
    static final int REGION_LENGTH = 64;

    private CreditLayout()
    {
    }
}
