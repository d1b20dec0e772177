package io.ringwire.rdma.ibverbs;

/**
 * Enum values and flag bits of verbs.h this provider passes to or reads from libibverbs, and the
 * conversions between them and this API's units (bytes, nanoseconds).
 */
final class VerbsValues
{
    /** UDP destination port of RoCEv2, fixed by the IBA (annex A17). */
    static final int ROCE_V2_PORT = 4791;

    // enum ibv_qp_type
    static final int IBV_QPT_RC = 2;

    // enum ibv_qp_state
    static final int IBV_QPS_RESET = 0;
    static final int IBV_QPS_INIT = 1;
    static final int IBV_QPS_RTR = 2;
    static final int IBV_QPS_RTS = 3;
    static final int IBV_QPS_SQD = 4;
    static final int IBV_QPS_SQE = 5;
    static final int IBV_QPS_ERR = 6;

    // enum ibv_qp_attr_mask
    static final int IBV_QP_STATE = 1;
    static final int IBV_QP_ACCESS_FLAGS = 1 << 3;
    static final int IBV_QP_PKEY_INDEX = 1 << 4;
    static final int IBV_QP_PORT = 1 << 5;
    static final int IBV_QP_AV = 1 << 7;
    static final int IBV_QP_PATH_MTU = 1 << 8;
    static final int IBV_QP_TIMEOUT = 1 << 9;
    static final int IBV_QP_RETRY_CNT = 1 << 10;
    static final int IBV_QP_RNR_RETRY = 1 << 11;
    static final int IBV_QP_RQ_PSN = 1 << 12;
    static final int IBV_QP_MAX_QP_RD_ATOMIC = 1 << 13;
    static final int IBV_QP_MIN_RNR_TIMER = 1 << 15;
    static final int IBV_QP_SQ_PSN = 1 << 16;
    static final int IBV_QP_MAX_DEST_RD_ATOMIC = 1 << 17;
    static final int IBV_QP_DEST_QPN = 1 << 20;

    // enum ibv_wr_opcode
    static final int IBV_WR_RDMA_WRITE = 0;
    static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    static final int IBV_WR_SEND = 2;

    // enum ibv_wc_flags
    static final int IBV_WC_WITH_IMM = 1 << 1;

    // enum ibv_port_state
    static final int IBV_PORT_ACTIVE = 4;

    // link_layer of ibv_port_attr
    static final int IBV_LINK_LAYER_UNSPECIFIED = 0;
    static final int IBV_LINK_LAYER_INFINIBAND = 1;
    static final int IBV_LINK_LAYER_ETHERNET = 2;

    /** RNR NAK timer the responder advertises: 12 = 0.64 ms, the value perftest and rdma_cm use. */
    static final int MIN_RNR_TIMER = 12;
    /** Hop limit of the GRH: RoCEv2 packets are routable IP packets. */
    static final int HOP_LIMIT = 64;
    /** Largest IB local ACK timeout exponent (4.096 us * 2^31, about 2.4 hours); 0 would mean infinite. */
    static final int MAX_TIMEOUT_EXPONENT = 31;

    private VerbsValues()
    {
    }

    /**
     * @param mtuEnum an {@code enum ibv_mtu} value, 1 to 5.
     * @return bytes (256 to 4096), or 0 for an unknown value.
     */
    static int mtuBytes(final int mtuEnum)
    {
        return mtuEnum >= 1 && mtuEnum <= 5 ? 128 << mtuEnum : 0;
    }

    /**
     * @param bytes a path MTU in bytes.
     * @return the largest {@code enum ibv_mtu} not above it (IBV_MTU_256 = 1 at least).
     */
    static int mtuEnum(final int bytes)
    {
        int mtuEnum = 1;
        while (mtuEnum < 5 && mtuBytes(mtuEnum + 1) <= bytes)
        {
            mtuEnum++;
        }
        return mtuEnum;
    }

    /**
     * The IB local ACK timeout is {@code 4.096 us * 2^timeout}: the smallest exponent whose timeout
     * is at least the configured one (never 0, which means "wait forever").
     *
     * @param ackTimeoutNs configured ACK timeout.
     * @return the exponent, 1 to 31.
     */
    static int ackTimeoutExponent(final long ackTimeoutNs)
    {
        int exponent = 1;
        while (exponent < MAX_TIMEOUT_EXPONENT && timeoutNs(exponent) < ackTimeoutNs)
        {
            exponent++;
        }
        return exponent;
    }

    /**
     * @param exponent an IB timeout exponent.
     * @return its duration in nanoseconds.
     */
    static long timeoutNs(final int exponent)
    {
        return 4096L << exponent;
    }

    /**
     * @param state an {@code enum ibv_port_state} value.
     * @return its name as {@code ibv_devinfo} prints it.
     */
    static String portStateName(final int state)
    {
        return switch (state)
        {
            case 0 -> "NOP";
            case 1 -> "DOWN";
            case 2 -> "INIT";
            case 3 -> "ARMED";
            case 4 -> "ACTIVE";
            case 5 -> "ACTIVE_DEFER";
            default -> "UNKNOWN(" + state + ")";
        };
    }

    /**
     * @param linkLayer the {@code link_layer} of a port.
     * @return "Ethernet" (RoCE), "InfiniBand" or "unspecified".
     */
    static String linkLayerName(final int linkLayer)
    {
        return switch (linkLayer)
        {
            case IBV_LINK_LAYER_INFINIBAND -> "InfiniBand";
            case IBV_LINK_LAYER_ETHERNET -> "Ethernet";
            default -> "unspecified";
        };
    }

    /**
     * @param state an {@code enum ibv_qp_state} value.
     * @return its name.
     */
    static String queuePairStateName(final int state)
    {
        return switch (state)
        {
            case IBV_QPS_RESET -> "RESET";
            case IBV_QPS_INIT -> "INIT";
            case IBV_QPS_RTR -> "RTR";
            case IBV_QPS_RTS -> "RTS";
            case IBV_QPS_SQD -> "SQD";
            case IBV_QPS_SQE -> "SQE";
            case IBV_QPS_ERR -> "ERR";
            default -> "UNKNOWN(" + state + ")";
        };
    }
}
