package io.ringwire.perf.host;

/**
 * What a spinning loop watches while it waits for its peer, at its clock checks: the housekeeping
 * the connection needs while it is quiet, and the connection's state for a timeout's message.
 * Implemented by the RingWire sides (rtt's messaging and RDMA peers); a raw baseline watches
 * {@link #NONE}.
 *
 * <p>Threading: the spinning thread, off its busy path.
 */
public interface WatchedConnection
{
    /** Nothing to do and nothing to say: the raw baselines' connections. */
    WatchedConnection NONE = new WatchedConnection()
    {
    };

    /**
     * Housekeeping a quiet loop owes the connection; none by default.
     */
    default void onWatch()
    {
    }

    /**
     * @return what a silence or timeout message adds (the connection's state); empty by default.
     */
    default String watchDetail()
    {
        return "";
    }
}
