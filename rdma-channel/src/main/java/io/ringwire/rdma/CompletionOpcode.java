package io.ringwire.rdma;

/**
 * Opcode of a completion, with libibverbs' {@code ibv_wc_opcode} values.
 */
public final class CompletionOpcode
{
    /** A SEND (with or without immediate) completed on the requester. */
    public static final int SEND = 0;
    /** An RDMA WRITE (with or without immediate) completed on the requester. */
    public static final int RDMA_WRITE = 1;
    /** An RDMA READ completed on the requester. */
    public static final int RDMA_READ = 2;
    /** A receive consumed by an incoming SEND. */
    public static final int RECV = 128;
    /** A receive consumed by an incoming RDMA WRITE WITH IMMEDIATE: the data is already in place. */
    public static final int RECV_RDMA_WITH_IMM = 129;

    private CompletionOpcode()
    {
    }

    /**
     * @param opcode of a completion.
     * @return its name.
     */
    public static String name(final int opcode)
    {
        return switch (opcode)
        {
            case SEND -> "SEND";
            case RDMA_WRITE -> "RDMA_WRITE";
            case RDMA_READ -> "RDMA_READ";
            case RECV -> "RECV";
            case RECV_RDMA_WITH_IMM -> "RECV_RDMA_WITH_IMM";
            default -> "UNKNOWN(" + opcode + ")";
        };
    }

    /**
     * @param opcode of a completion.
     * @return true for completions of the receive queue.
     */
    public static boolean isReceive(final int opcode)
    {
        return (opcode & RECV) != 0;
    }
}
