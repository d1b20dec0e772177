package io.ringwire.rdma;

/**
 * Status of a completion, with libibverbs' {@code ibv_wc_status} values. Anything but
 * {@link #SUCCESS} moves the queue pair to ERROR; the requests still outstanding then complete
 * with {@link #WR_FLUSH_ERROR}.
 */
public final class CompletionStatus
{
    /** Completed. */
    public static final int SUCCESS = 0;
    /** The request's length exceeded a receive buffer or the maximum message size. */
    public static final int LOCAL_LENGTH_ERROR = 1;
    /** The local range is outside the lkey's memory region, or the region lacks LOCAL_WRITE. */
    public static final int LOCAL_PROTECTION_ERROR = 4;
    /** Flushed: the queue pair was in, or went to, ERROR before the request ran. */
    public static final int WR_FLUSH_ERROR = 5;
    /** The responder refused the request: unknown rkey, outside the region, or missing access. */
    public static final int REMOTE_ACCESS_ERROR = 10;
    /** The responder could not handle the request (e.g. it was malformed). */
    public static final int REMOTE_INVALID_REQUEST = 9;
    /** The responder failed while executing the request. */
    public static final int REMOTE_OPERATIONAL_ERROR = 11;
    /** No acknowledgement within the timeout after all retries: the peer is gone or unreachable. */
    public static final int RETRY_EXCEEDED = 12;
    /** The responder had no receive posted for too long. */
    public static final int RNR_RETRY_EXCEEDED = 13;

    private CompletionStatus()
    {
    }

    /**
     * @param status of a completion.
     * @return its name, for logs and errors.
     */
    public static String name(final int status)
    {
        return switch (status)
        {
            case SUCCESS -> "SUCCESS";
            case LOCAL_LENGTH_ERROR -> "LOCAL_LENGTH_ERROR";
            case LOCAL_PROTECTION_ERROR -> "LOCAL_PROTECTION_ERROR";
            case WR_FLUSH_ERROR -> "WR_FLUSH_ERROR";
            case REMOTE_ACCESS_ERROR -> "REMOTE_ACCESS_ERROR";
            case REMOTE_INVALID_REQUEST -> "REMOTE_INVALID_REQUEST";
            case REMOTE_OPERATIONAL_ERROR -> "REMOTE_OPERATIONAL_ERROR";
            case RETRY_EXCEEDED -> "RETRY_EXCEEDED";
            case RNR_RETRY_EXCEEDED -> "RNR_RETRY_EXCEEDED";
            default -> "UNKNOWN(" + status + ")";
        };
    }
}
