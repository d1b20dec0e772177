package io.ringwire.rdma.ibverbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Read-only queries of an open device context: {@code ibv_query_device}, {@code ibv_query_port},
 * {@code ibv_query_gid}. Control path; each call allocates its result struct in a confined arena.
 */
final class VerbsQueries
{
    /**
     * What {@code ibv_query_device} reports that this provider uses.
     *
     * @param firmware          fw_ver.
     * @param nodeGuid          node_guid (as the big-endian value).
     * @param physicalPorts     phys_port_cnt.
     * @param maxQueuePairDepth max_qp_wr.
     * @param maxCompletionQueueDepth max_cqe.
     * @param maxRegionSize     max_mr_size.
     */
    record DeviceAttributes(String firmware, long nodeGuid, int physicalPorts, int maxQueuePairDepth,
        int maxCompletionQueueDepth, long maxRegionSize)
    {
    }

    /**
     * What {@code ibv_query_port} reports that this provider uses.
     *
     * @param state          enum ibv_port_state.
     * @param maxMtu         enum ibv_mtu.
     * @param activeMtu      enum ibv_mtu.
     * @param gidTableLength gid_tbl_len.
     * @param maxMessageSize max_msg_sz in bytes (unsigned 32-bit).
     * @param linkLayer      link_layer.
     */
    record PortAttributes(int state, int maxMtu, int activeMtu, int gidTableLength, long maxMessageSize,
        int linkLayer)
    {
        /**
         * @return true when the port can carry traffic.
         */
        boolean isActive()
        {
            return state == VerbsValues.IBV_PORT_ACTIVE;
        }
    }

    private VerbsQueries()
    {
    }

    static DeviceAttributes queryDevice(final Verbs verbs, final MemorySegment context)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(VerbsLayouts.DEVICE_ATTR);
            verbs.queryDevice(context, attr);
            final byte[] fw = attr.asSlice(VerbsLayouts.DEVICE_ATTR_FW_VER, 64).toArray(JAVA_BYTE);
            int end = 0;
            while (end < fw.length && fw[end] != 0)
            {
                end++;
            }
            return new DeviceAttributes(new String(fw, 0, end, StandardCharsets.US_ASCII),
                Long.reverseBytes(attr.get(JAVA_LONG, VerbsLayouts.DEVICE_ATTR_NODE_GUID)),
                attr.get(JAVA_BYTE, VerbsLayouts.DEVICE_ATTR_PHYS_PORT_CNT) & 0xFF,
                attr.get(JAVA_INT, VerbsLayouts.DEVICE_ATTR_MAX_QP_WR),
                attr.get(JAVA_INT, VerbsLayouts.DEVICE_ATTR_MAX_CQE),
                attr.get(JAVA_LONG, VerbsLayouts.DEVICE_ATTR_MAX_MR_SIZE));
        }
    }

    static PortAttributes queryPort(final Verbs verbs, final MemorySegment context, final int port)
    {
        try (Arena arena = Arena.ofConfined())
        {
            // Sized and zeroed for the full struct; the exported ibv_query_port fills the compat prefix.
            final MemorySegment attr = arena.allocate(VerbsLayouts.PORT_ATTR);
            verbs.queryPort(context, port, attr);
            return new PortAttributes(
                attr.get(JAVA_INT, VerbsLayouts.PORT_ATTR_STATE),
                attr.get(JAVA_INT, VerbsLayouts.PORT_ATTR_MAX_MTU),
                attr.get(JAVA_INT, VerbsLayouts.PORT_ATTR_ACTIVE_MTU),
                attr.get(JAVA_INT, VerbsLayouts.PORT_ATTR_GID_TBL_LEN),
                Integer.toUnsignedLong(attr.get(JAVA_INT, VerbsLayouts.PORT_ATTR_MAX_MSG_SZ)),
                attr.get(JAVA_BYTE, VerbsLayouts.PORT_ATTR_LINK_LAYER) & 0xFF);
        }
    }

    static byte[] queryGid(final Verbs verbs, final MemorySegment context, final int port, final int index)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment gid = arena.allocate(VerbsLayouts.GID);
            verbs.queryGid(context, port, index, gid);
            return gid.toArray(JAVA_BYTE);
        }
    }
}
