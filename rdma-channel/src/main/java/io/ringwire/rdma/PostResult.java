package io.ringwire.rdma;

/**
 * Return codes of {@code QueuePair.post*}. Zero means the work request was accepted: its outcome
 * arrives later as a completion (always for a failure, only when signaled for a success). A
 * negative code means the request was refused at once and no completion will ever come for it.
 */
public final class PostResult
{
    /** Accepted. */
    public static final int OK = 0;
    /** The send or receive queue already holds its configured depth of outstanding requests. */
    public static final int QUEUE_FULL = -1;
    /** The queue pair is not in a state that accepts this request (sends need RTS, receives INIT+). */
    public static final int INVALID_STATE = -2;
    /** A bad argument: negative length, length above max message size, or INLINE above max inline. */
    public static final int INVALID_ARGUMENT = -3;

    private PostResult()
    {
    }

    /**
     * @param code returned by a post.
     * @return the constant's name, for logs and errors.
     */
    public static String name(final int code)
    {
        return switch (code)
        {
            case OK -> "OK";
            case QUEUE_FULL -> "QUEUE_FULL";
            case INVALID_STATE -> "INVALID_STATE";
            case INVALID_ARGUMENT -> "INVALID_ARGUMENT";
            default -> "UNKNOWN(" + code + ")";
        };
    }
}
