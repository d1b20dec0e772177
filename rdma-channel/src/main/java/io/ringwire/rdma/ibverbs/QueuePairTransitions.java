package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.Access;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.ringwire.rdma.ibverbs.VerbsLayouts.*;
import static io.ringwire.rdma.ibverbs.VerbsValues.*;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The {@code ibv_modify_qp} calls that take an RC queue pair from RESET to RTS (and to ERROR), with
 * the attributes and masks RoCE needs; the values are those perftest and rdma_cm use. Each call
 * fills a zeroed {@code struct ibv_qp_attr}. Control path.
 */
final class QueuePairTransitions
{
    /** Responder resources and initiator depth for RDMA READ: this API posts no READs, one is enough. */
    private static final int RD_ATOMIC = 1;

    private QueuePairTransitions()
    {
    }

    /**
     * RESET to INIT: partition key index 0 (0xFFFF on RoCE), the port, and remote access flags
     * (the regions still decide what a peer may do: the QP flags only must not forbid it).
     */
    static void toInit(final Verbs verbs, final MemorySegment qp, final int port)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(QP_ATTR);
            attr.set(JAVA_INT, QP_ATTR_QP_STATE, IBV_QPS_INIT);
            attr.set(JAVA_SHORT, QP_ATTR_PKEY_INDEX, (short)0);
            attr.set(JAVA_BYTE, QP_ATTR_PORT_NUM, (byte)port);
            attr.set(JAVA_INT, QP_ATTR_QP_ACCESS_FLAGS, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
            verbs.modifyQp(qp, attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
        }
    }

    /**
     * INIT to RTR: the address vector is global (RoCE always carries a GRH): destination GID, our
     * source GID index, hop limit 64; the path MTU, the peer's QPN and its first PSN, one RDMA READ
     * responder resource, and the RNR timer this side advertises.
     *
     * @param dgid        the peer's GID.
     * @param pathMtuEnum an {@code enum ibv_mtu}.
     */
    static void toReadyToReceive(final Verbs verbs, final MemorySegment qp, final int port, final int gidIndex,
        final byte[] dgid, final int pathMtuEnum, final int destinationQueuePairNumber, final int receivePsn)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(QP_ATTR);
            attr.set(JAVA_INT, QP_ATTR_QP_STATE, IBV_QPS_RTR);
            attr.set(JAVA_INT, QP_ATTR_PATH_MTU, pathMtuEnum);
            attr.set(JAVA_INT, QP_ATTR_DEST_QP_NUM, destinationQueuePairNumber);
            attr.set(JAVA_INT, QP_ATTR_RQ_PSN, receivePsn);
            attr.set(JAVA_BYTE, QP_ATTR_MAX_DEST_RD_ATOMIC, (byte)RD_ATOMIC);
            attr.set(JAVA_BYTE, QP_ATTR_MIN_RNR_TIMER, (byte)MIN_RNR_TIMER);
            MemorySegment.copy(dgid, 0, attr, JAVA_BYTE, QP_ATTR_AH_DGID, GidAddress.LENGTH);
            attr.set(JAVA_INT, QP_ATTR_AH_FLOW_LABEL, 0);
            attr.set(JAVA_BYTE, QP_ATTR_AH_SGID_INDEX, (byte)gidIndex);
            attr.set(JAVA_BYTE, QP_ATTR_AH_HOP_LIMIT, (byte)HOP_LIMIT);
            attr.set(JAVA_BYTE, QP_ATTR_AH_TRAFFIC_CLASS, (byte)0);
            attr.set(JAVA_SHORT, QP_ATTR_AH_DLID, (short)0);
            attr.set(JAVA_BYTE, QP_ATTR_AH_SL, (byte)0);
            attr.set(JAVA_BYTE, QP_ATTR_AH_IS_GLOBAL, (byte)1);
            attr.set(JAVA_BYTE, QP_ATTR_AH_PORT_NUM, (byte)port);
            verbs.modifyQp(qp, attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
        }
    }

    /**
     * RTR to RTS: local ACK timeout exponent, retry counts, our first PSN, one outstanding RDMA READ.
     */
    static void toReadyToSend(final Verbs verbs, final MemorySegment qp, final int timeoutExponent,
        final int retryCount, final int rnrRetryCount, final int sendPsn)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(QP_ATTR);
            attr.set(JAVA_INT, QP_ATTR_QP_STATE, IBV_QPS_RTS);
            attr.set(JAVA_BYTE, QP_ATTR_TIMEOUT, (byte)timeoutExponent);
            attr.set(JAVA_BYTE, QP_ATTR_RETRY_CNT, (byte)retryCount);
            attr.set(JAVA_BYTE, QP_ATTR_RNR_RETRY, (byte)rnrRetryCount);
            attr.set(JAVA_INT, QP_ATTR_SQ_PSN, sendPsn);
            attr.set(JAVA_BYTE, QP_ATTR_MAX_RD_ATOMIC, (byte)RD_ATOMIC);
            verbs.modifyQp(qp, attr, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
        }
    }

    /**
     * Any state to ERROR: the NIC flushes every outstanding request with WR_FLUSH_ERROR.
     */
    static void toError(final Verbs verbs, final MemorySegment qp)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(QP_ATTR);
            attr.set(JAVA_INT, QP_ATTR_QP_STATE, IBV_QPS_ERR);
            verbs.modifyQp(qp, attr, IBV_QP_STATE);
        }
    }

    /**
     * @return the NIC's current {@code enum ibv_qp_state} ({@code ibv_query_qp}); the NIC moves a
     *         queue pair to ERR by itself when a request fails.
     */
    static int queryState(final Verbs verbs, final MemorySegment qp)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(QP_ATTR);
            final MemorySegment initAttr = arena.allocate(QP_INIT_ATTR);
            verbs.queryQp(qp, attr, IBV_QP_STATE, initAttr);
            return attr.get(JAVA_INT, QP_ATTR_QP_STATE);
        }
    }
}
