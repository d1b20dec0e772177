package io.ringwire.rdma;

/**
 * Access flags of a memory region, with libibverbs' values ({@code IBV_ACCESS_*}) so the ibverbs
 * provider passes them through unchanged. Local read access is always granted.
 */
public final class Access
{
    /** The local queue pair may write into the region (receive buffers, RDMA READ targets). */
    public static final int LOCAL_WRITE = 1;
    /** A remote peer may RDMA WRITE into the region with its rkey. */
    public static final int REMOTE_WRITE = 1 << 1;
    /** A remote peer may RDMA READ from the region with its rkey. */
    public static final int REMOTE_READ = 1 << 2;

    /** Every flag this API knows. */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ;

    private Access()
    {
    }

    /**
     * Whether every flag in {@code required} is set in {@code granted}.
     *
     * @param granted  flags of a region.
     * @param required flags an operation needs.
     * @return true when the operation is allowed.
     */
    public static boolean allows(final int granted, final int required)
    {
        return (granted & required) == required;
    }

    /**
     * Checks flags given by a caller.
     *
     * @param access flags to check.
     * @throws IllegalArgumentException when unknown bits are set, or REMOTE_WRITE without
     *                                  LOCAL_WRITE (which verbs also refuses).
     */
    public static void validate(final int access)
    {
        if ((access & ~ALL) != 0)
        {
            throw new IllegalArgumentException("unknown access flags 0x" + Integer.toHexString(access & ~ALL) +
                " (allowed: LOCAL_WRITE=1, REMOTE_WRITE=2, REMOTE_READ=4)");
        }
        if ((access & REMOTE_WRITE) != 0 && (access & LOCAL_WRITE) == 0)
        {
            throw new IllegalArgumentException("REMOTE_WRITE requires LOCAL_WRITE, as in verbs");
        }
    }

    /**
     * Human-readable flags, for errors and tools.
     *
     * @param access flags.
     * @return e.g. "LOCAL_WRITE|REMOTE_WRITE", or "NONE".
     */
    public static String toString(final int access)
    {
        final StringBuilder sb = new StringBuilder();
        if ((access & LOCAL_WRITE) != 0)
        {
            sb.append("LOCAL_WRITE");
        }
        if ((access & REMOTE_WRITE) != 0)
        {
            sb.append(sb.isEmpty() ? "" : "|").append("REMOTE_WRITE");
        }
        if ((access & REMOTE_READ) != 0)
        {
            sb.append(sb.isEmpty() ? "" : "|").append("REMOTE_READ");
        }
        return sb.isEmpty() ? "NONE" : sb.toString();
    }
}
