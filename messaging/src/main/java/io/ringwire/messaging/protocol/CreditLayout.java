package io.ringwire.messaging.protocol;

/**
 * The publication's credit region, written by the subscriber with one-sided RDMA WRITEs (or, in a
 * memory log, stores) and read only locally by the publication (no remote read on the hot path):
 *
 * <pre>
 *   0: long consumed position (the subscriber's read position in the stream; a memory log's
 *      image, while it has read only part of a message, the start of that message)
 *   8: long subscriber liveness counter (incremented with every credit write, heartbeat or not)
 *  16: long receives posted: receive requests the subscriber has posted on this connection so far
 * </pre>
 *
 * All three are written in one 24-byte write; the publication reads them with acquire loads.
 *
 * <p>A memory log's image (shm), which stores its credit straight into this region, also writes
 * three words when it closes, so that its publication knows exactly what it left unread:
 *
 * <pre>
 *  24: long closed position: the image read every frame before it and reads nothing more
 *  32: long closed mark: {@link #closedMark} of the image's session and connection, written
 *      after the two positions with release order; 0 until then
 *  40: long closed message start: where the message the image had read only the first fragments
 *      of starts (never delivered whole: it is written again from there where the ring still
 *      holds it), or the closed position when it stopped between messages
 * </pre>
 *
 * On a memory log the publication itself keeps one word here, which its image only reads:
 *
 * <pre>
 *  48: long publication beat: raised at each heartbeat that no frame can carry (another
 *      subscriber's full ring holds the stream back), a sign of life for an image that has read
 *      everything
 * </pre>
 *
 * The publication resets the mark to 0 for every new connection; the session and the connection's
 * number (from its JOIN) in it tell a late mark of an earlier connection, which an image of it can
 * still store after the reset, from one of the connection the publication lets go: the session
 * alone does not where the channel fixes it ({@code session-id=}), as every connection then has
 * the same.
 *
 * <p>Receive credit: every WRITE WITH IMMEDIATE (one per frame, padding and heartbeats included,
 * and each keepalive, {@link FrameDescriptor#KEEPALIVE_IMMEDIATE}) and the JOIN send consume one
 * posted receive at the subscriber. A request arriving when none is
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
    /** Offset of the position a memory log's image closed at. */
    public static final int CLOSED_POSITION_OFFSET = 24;
    /** Offset of the closed image's {@link #closedMark}. */
    public static final int CLOSED_MARK_OFFSET = 32;
    /** Offset of where the message a memory log's image closed in the middle of starts. */
    public static final int CLOSED_MESSAGE_START_OFFSET = 40;
    /**
     * Offset of the publication's beat on a memory log: a count it raises at each heartbeat that no
     * frame can carry (another subscriber's full ring holds every frame back), which its subscriber
     * reads as a sign of life. The publication's own word: the subscriber only reads it.
     */
    public static final int PUBLICATION_BEAT_OFFSET = 48;
    /** Bytes a memory log's image maps of the region: the credit, the closing words and the beat. */
    public static final int MEMORY_LOG_LENGTH = 56;
    /** Receives a subscription posts for a new publication before it completes the connection. */
    public static final int INITIAL_RECEIVES = 256;
    /** Registered regions are at least this big. */
    public static final int REGION_LENGTH = 64;

    /**
     * @param sessionId  the closed image's session.
     * @param connection its connection's number, from the JOIN (never 0).
     * @return the mark a memory log's image writes when it closes: never 0, and one per session and
     *         connection.
     */
    public static long closedMark(final int sessionId, final int connection)
    {
        return (long)connection << 32 | (sessionId & 0xFFFF_FFFFL);
    }

    private CreditLayout()
    {
    }
}
