package io.ringwire.rdma.ibverbs;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The libibverbs structs this provider reads or writes, as {@link MemoryLayout}s whose member names
 * are the C member names of {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 LP64), with the
 * padding the C compiler inserts written out. {@code IbverbsLayoutTest} compiles a C program against
 * the installed header and checks every size and every member offset listed there against these.
 *
 * <p>C types: {@code int}, {@code unsigned}, {@code uint32_t}, enums and {@code __be32} are
 * {@code JAVA_INT}; {@code uint64_t}, {@code size_t} and {@code __be64} are {@code JAVA_LONG};
 * pointers are {@code ADDRESS}; {@code uint16_t} is {@code JAVA_SHORT}; {@code uint8_t} and
 * {@code char} are {@code JAVA_BYTE}. {@code pthread_mutex_t} (40 bytes) and {@code pthread_cond_t}
 * (48 bytes) are opaque 8-byte-aligned blocks.
 *
 * <p>Offsets used on the hot path are {@code static final long} constants below, so the JIT folds
 * them; byte order is the machine's (little-endian) except for the {@code __be32} immediates, which
 * the users of {@link #SEND_WR_IMM_DATA} and {@link #WC_IMM_DATA} byte-swap.
 */
final class VerbsLayouts
{
    private VerbsLayouts()
    {
    }

    private static MemoryLayout pad(final long bytes)
    {
        return MemoryLayout.paddingLayout(bytes);
    }

    private static MemoryLayout u8(final String name)
    {
        return JAVA_BYTE.withName(name);
    }

    private static MemoryLayout u16(final String name)
    {
        return JAVA_SHORT.withName(name);
    }

    private static MemoryLayout u32(final String name)
    {
        return JAVA_INT.withName(name);
    }

    private static MemoryLayout u64(final String name)
    {
        return JAVA_LONG.withName(name);
    }

    private static MemoryLayout ptr(final String name)
    {
        return ADDRESS.withName(name);
    }

    /** {@code pthread_mutex_t} on x86-64 glibc: 40 bytes, 8-byte aligned. */
    private static MemoryLayout mutex(final String name)
    {
        return MemoryLayout.sequenceLayout(5, JAVA_LONG).withName(name);
    }

    /** {@code pthread_cond_t} on x86-64 glibc: 48 bytes, 8-byte aligned. */
    private static MemoryLayout cond(final String name)
    {
        return MemoryLayout.sequenceLayout(6, JAVA_LONG).withName(name);
    }

    /** {@code union ibv_gid}: 16 raw bytes, or subnet prefix and interface id (both big-endian). */
    static final GroupLayout GID = MemoryLayout.unionLayout(
        MemoryLayout.sequenceLayout(16, JAVA_BYTE).withName("raw"),
        MemoryLayout.structLayout(u64("subnet_prefix"), u64("interface_id")).withName("global"))
        .withName("ibv_gid");

    /** {@code struct ibv_device_attr}, filled by {@code ibv_query_device}. */
    static final StructLayout DEVICE_ATTR = MemoryLayout.structLayout(
        MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("fw_ver"),
        u64("node_guid"), u64("sys_image_guid"), u64("max_mr_size"), u64("page_size_cap"),
        u32("vendor_id"), u32("vendor_part_id"), u32("hw_ver"), u32("max_qp"), u32("max_qp_wr"),
        u32("device_cap_flags"), u32("max_sge"), u32("max_sge_rd"), u32("max_cq"), u32("max_cqe"),
        u32("max_mr"), u32("max_pd"), u32("max_qp_rd_atom"), u32("max_ee_rd_atom"), u32("max_res_rd_atom"),
        u32("max_qp_init_rd_atom"), u32("max_ee_init_rd_atom"), u32("atomic_cap"), u32("max_ee"), u32("max_rdd"),
        u32("max_mw"), u32("max_raw_ipv6_qp"), u32("max_raw_ethy_qp"), u32("max_mcast_grp"),
        u32("max_mcast_qp_attach"), u32("max_total_mcast_qp_attach"), u32("max_ah"), u32("max_fmr"),
        u32("max_map_per_fmr"), u32("max_srq"), u32("max_srq_wr"), u32("max_srq_sge"),
        u16("max_pkeys"), u8("local_ca_ack_delay"), u8("phys_port_cnt"), pad(4))
        .withName("ibv_device_attr");

    /**
     * {@code struct ibv_port_attr}. The exported {@code ibv_query_port} (IBVERBS_1.1) fills the
     * older {@code struct _compat_ibv_port_attr}, which is this struct up to and including
     * {@code flags} (rdma-core {@code libibverbs/verbs.c}); the buffer is sized for the full struct and
     * zeroed, and only members of that prefix are read.
     */
    static final StructLayout PORT_ATTR = MemoryLayout.structLayout(
        u32("state"), u32("max_mtu"), u32("active_mtu"), u32("gid_tbl_len"), u32("port_cap_flags"),
        u32("max_msg_sz"), u32("bad_pkey_cntr"), u32("qkey_viol_cntr"),
        u16("pkey_tbl_len"), u16("lid"), u16("sm_lid"),
        u8("lmc"), u8("max_vl_num"), u8("sm_sl"), u8("subnet_timeout"), u8("init_type_reply"),
        u8("active_width"), u8("active_speed"), u8("phys_state"), u8("link_layer"), u8("flags"),
        u16("port_cap_flags2"), pad(2))
        .withName("ibv_port_attr");

    /** Bytes of the port attributes the exported {@code ibv_query_port} writes (through {@code flags}). */
    static final long COMPAT_PORT_ATTR_SIZE = offset(PORT_ATTR, "flags") + 1;

    /**
     * {@code struct ibv_context_ops}: the driver's function table inside every {@code ibv_context}.
     * {@code ibv_post_send}, {@code ibv_post_recv} and {@code ibv_poll_cq} are static inline
     * functions in verbs.h that call through {@code post_send}, {@code post_recv} and {@code poll_cq}.
     */
    static final StructLayout CONTEXT_OPS = MemoryLayout.structLayout(
        ptr("_compat_query_device"), ptr("_compat_query_port"), ptr("_compat_alloc_pd"),
        ptr("_compat_dealloc_pd"), ptr("_compat_reg_mr"), ptr("_compat_rereg_mr"), ptr("_compat_dereg_mr"),
        ptr("alloc_mw"), ptr("bind_mw"), ptr("dealloc_mw"), ptr("_compat_create_cq"), ptr("poll_cq"),
        ptr("req_notify_cq"), ptr("_compat_cq_event"), ptr("_compat_resize_cq"), ptr("_compat_destroy_cq"),
        ptr("_compat_create_srq"), ptr("_compat_modify_srq"), ptr("_compat_query_srq"),
        ptr("_compat_destroy_srq"), ptr("post_srq_recv"), ptr("_compat_create_qp"), ptr("_compat_query_qp"),
        ptr("_compat_modify_qp"), ptr("_compat_destroy_qp"), ptr("post_send"), ptr("post_recv"),
        ptr("_compat_create_ah"), ptr("_compat_destroy_ah"), ptr("_compat_attach_mcast"),
        ptr("_compat_detach_mcast"), ptr("_compat_async_event"))
        .withName("ibv_context_ops");

    /** {@code struct ibv_context}, allocated by {@code ibv_open_device}; only {@code ops} is read. */
    static final StructLayout CONTEXT = MemoryLayout.structLayout(
        ptr("device"), CONTEXT_OPS.withName("ops"), u32("cmd_fd"), u32("async_fd"), u32("num_comp_vectors"),
        pad(4), mutex("mutex"), ptr("abi_compat"))
        .withName("ibv_context");

    /** {@code struct ibv_pd}, allocated by {@code ibv_alloc_pd}. */
    static final StructLayout PD = MemoryLayout.structLayout(ptr("context"), u32("handle"), pad(4))
        .withName("ibv_pd");

    /** {@code struct ibv_mr}, allocated by {@code ibv_reg_mr}: the keys are read from it. */
    static final StructLayout MR = MemoryLayout.structLayout(
        ptr("context"), ptr("pd"), ptr("addr"), u64("length"), u32("handle"), u32("lkey"), u32("rkey"), pad(4))
        .withName("ibv_mr");

    /** {@code struct ibv_cq}, allocated by {@code ibv_create_cq}. */
    static final StructLayout CQ = MemoryLayout.structLayout(
        ptr("context"), ptr("channel"), ptr("cq_context"), u32("handle"), u32("cqe"), mutex("mutex"), cond("cond"),
        u32("comp_events_completed"), u32("async_events_completed"))
        .withName("ibv_cq");

    /** {@code struct ibv_qp}, allocated by {@code ibv_create_qp}: {@code qp_num} is read from it. */
    static final StructLayout QP = MemoryLayout.structLayout(
        ptr("context"), ptr("qp_context"), ptr("pd"), ptr("send_cq"), ptr("recv_cq"), ptr("srq"),
        u32("handle"), u32("qp_num"), u32("state"), u32("qp_type"), mutex("mutex"), cond("cond"),
        u32("events_completed"), pad(4))
        .withName("ibv_qp");

    /** {@code struct ibv_qp_cap}: queue sizes, requested and (after create) granted. */
    static final StructLayout QP_CAP = MemoryLayout.structLayout(
        u32("max_send_wr"), u32("max_recv_wr"), u32("max_send_sge"), u32("max_recv_sge"), u32("max_inline_data"))
        .withName("ibv_qp_cap");

    /** {@code struct ibv_qp_init_attr}, input of {@code ibv_create_qp}. */
    static final StructLayout QP_INIT_ATTR = MemoryLayout.structLayout(
        ptr("qp_context"), ptr("send_cq"), ptr("recv_cq"), ptr("srq"), QP_CAP.withName("cap"), u32("qp_type"),
        u32("sq_sig_all"), pad(4))
        .withName("ibv_qp_init_attr");

    /** {@code struct ibv_global_route}: the GRH of an address vector (RoCE always uses it). */
    static final StructLayout GLOBAL_ROUTE = MemoryLayout.structLayout(
        GID.withName("dgid"), u32("flow_label"), u8("sgid_index"), u8("hop_limit"), u8("traffic_class"), pad(1))
        .withName("ibv_global_route");

    /** {@code struct ibv_ah_attr}: address vector of the RTR transition. */
    static final StructLayout AH_ATTR = MemoryLayout.structLayout(
        GLOBAL_ROUTE.withName("grh"), u16("dlid"), u8("sl"), u8("src_path_bits"), u8("static_rate"),
        u8("is_global"), u8("port_num"), pad(1))
        .withName("ibv_ah_attr");

    /** {@code struct ibv_qp_attr}, input of {@code ibv_modify_qp} and output of {@code ibv_query_qp}. */
    static final StructLayout QP_ATTR = MemoryLayout.structLayout(
        u32("qp_state"), u32("cur_qp_state"), u32("path_mtu"), u32("path_mig_state"), u32("qkey"), u32("rq_psn"),
        u32("sq_psn"), u32("dest_qp_num"), u32("qp_access_flags"), QP_CAP.withName("cap"),
        AH_ATTR.withName("ah_attr"), AH_ATTR.withName("alt_ah_attr"), u16("pkey_index"), u16("alt_pkey_index"),
        u8("en_sqd_async_notify"), u8("sq_draining"), u8("max_rd_atomic"), u8("max_dest_rd_atomic"),
        u8("min_rnr_timer"), u8("port_num"), u8("timeout"), u8("retry_cnt"), u8("rnr_retry"), u8("alt_port_num"),
        u8("alt_timeout"), pad(1), u32("rate_limit"), pad(4))
        .withName("ibv_qp_attr");

    /** {@code struct ibv_sge}: one scatter/gather element. */
    static final StructLayout SGE = MemoryLayout.structLayout(u64("addr"), u32("length"), u32("lkey"))
        .withName("ibv_sge");

    /**
     * {@code struct ibv_send_wr}. The anonymous union after {@code send_flags} holds {@code imm_data}
     * ({@code __be32}: network byte order) or {@code invalidate_rkey}; {@code wr} is the union whose
     * {@code rdma} member carries the remote address and rkey of RDMA WRITE.
     */
    static final StructLayout SEND_WR = MemoryLayout.structLayout(
        u64("wr_id"), ptr("next"), ptr("sg_list"), u32("num_sge"), u32("opcode"), u32("send_flags"), u32("imm_data"),
        MemoryLayout.unionLayout(
            MemoryLayout.structLayout(u64("remote_addr"), u32("rkey"), pad(4)).withName("rdma"),
            MemoryLayout.structLayout(u64("remote_addr"), u64("compare_add"), u64("swap"), u32("rkey"), pad(4))
                .withName("atomic"),
            MemoryLayout.structLayout(ptr("ah"), u32("remote_qpn"), u32("remote_qkey")).withName("ud"))
            .withName("wr"),
        MemoryLayout.unionLayout(MemoryLayout.structLayout(u32("remote_srqn")).withName("xrc")).withName("qp_type"),
        pad(4),
        MemoryLayout.unionLayout(
            MemoryLayout.structLayout(ptr("mw"), u32("rkey"), pad(4),
                MemoryLayout.structLayout(ptr("mr"), u64("addr"), u64("length"), u32("mw_access_flags"), pad(4))
                    .withName("bind_info")).withName("bind_mw"),
            MemoryLayout.structLayout(ptr("hdr"), u16("hdr_sz"), u16("mss"), pad(4)).withName("tso"))
            .withName("bind_mw_or_tso"))
        .withName("ibv_send_wr");

    /** {@code struct ibv_recv_wr}. */
    static final StructLayout RECV_WR = MemoryLayout.structLayout(
        u64("wr_id"), ptr("next"), ptr("sg_list"), u32("num_sge"), pad(4))
        .withName("ibv_recv_wr");

    /**
     * {@code struct ibv_wc}: one completion. {@code imm_data} is network byte order. When the status is
     * not success, only {@code wr_id}, {@code status}, {@code qp_num} and {@code vendor_err} are valid.
     */
    static final StructLayout WC = MemoryLayout.structLayout(
        u64("wr_id"), u32("status"), u32("opcode"), u32("vendor_err"), u32("byte_len"), u32("imm_data"),
        u32("qp_num"), u32("src_qp"), u32("wc_flags"), u16("pkey_index"), u16("slid"), u8("sl"),
        u8("dlid_path_bits"), pad(2))
        .withName("ibv_wc");

    /** Every layout by its C name ({@code struct} or {@code union} tag), for the layout test. */
    static final Map<String, GroupLayout> BY_C_NAME = byName(GID, DEVICE_ATTR, PORT_ATTR, CONTEXT_OPS, CONTEXT, PD, MR,
        CQ, QP, QP_CAP, QP_INIT_ATTR, GLOBAL_ROUTE, AH_ATTR, QP_ATTR, SGE, SEND_WR, RECV_WR, WC);

    private static Map<String, GroupLayout> byName(final GroupLayout... layouts)
    {
        final Map<String, GroupLayout> map = new LinkedHashMap<>();
        for (final GroupLayout layout : layouts)
        {
            map.put(layout.name().orElseThrow(), layout);
        }
        return Map.copyOf(map);
    }

    /**
     * @param layout a struct.
     * @param path   member names separated by dots, as in C: {@code "ah_attr.grh.dgid"}.
     * @return the member's byte offset.
     */
    static long offset(final GroupLayout layout, final String path)
    {
        return layout.byteOffset(elements(path));
    }

    /**
     * @param layout a struct.
     * @param path   member names separated by dots.
     * @return the member's layout.
     */
    static MemoryLayout member(final GroupLayout layout, final String path)
    {
        return layout.select(elements(path));
    }

    private static PathElement[] elements(final String path)
    {
        return Arrays.stream(path.split("\\.")).map(PathElement::groupElement).toArray(PathElement[]::new);
    }

    // ---------------------------------------------------------------- offsets used by the provider

    static final long DEVICE_ATTR_FW_VER = offset(DEVICE_ATTR, "fw_ver");
    static final long DEVICE_ATTR_NODE_GUID = offset(DEVICE_ATTR, "node_guid");
    static final long DEVICE_ATTR_MAX_QP_WR = offset(DEVICE_ATTR, "max_qp_wr");
    static final long DEVICE_ATTR_MAX_CQE = offset(DEVICE_ATTR, "max_cqe");
    static final long DEVICE_ATTR_MAX_MR_SIZE = offset(DEVICE_ATTR, "max_mr_size");
    static final long DEVICE_ATTR_PHYS_PORT_CNT = offset(DEVICE_ATTR, "phys_port_cnt");

    static final long PORT_ATTR_STATE = offset(PORT_ATTR, "state");
    static final long PORT_ATTR_MAX_MTU = offset(PORT_ATTR, "max_mtu");
    static final long PORT_ATTR_ACTIVE_MTU = offset(PORT_ATTR, "active_mtu");
    static final long PORT_ATTR_GID_TBL_LEN = offset(PORT_ATTR, "gid_tbl_len");
    static final long PORT_ATTR_MAX_MSG_SZ = offset(PORT_ATTR, "max_msg_sz");
    static final long PORT_ATTR_LINK_LAYER = offset(PORT_ATTR, "link_layer");

    static final long CONTEXT_OPS_POLL_CQ = offset(CONTEXT, "ops.poll_cq");
    static final long CONTEXT_OPS_POST_SEND = offset(CONTEXT, "ops.post_send");
    static final long CONTEXT_OPS_POST_RECV = offset(CONTEXT, "ops.post_recv");

    static final long MR_ADDR = offset(MR, "addr");
    static final long MR_LENGTH = offset(MR, "length");
    static final long MR_LKEY = offset(MR, "lkey");
    static final long MR_RKEY = offset(MR, "rkey");

    static final long CQ_CQE = offset(CQ, "cqe");

    static final long QP_QP_NUM = offset(QP, "qp_num");
    static final long QP_STATE = offset(QP, "state");

    static final long QP_INIT_ATTR_SEND_CQ = offset(QP_INIT_ATTR, "send_cq");
    static final long QP_INIT_ATTR_RECV_CQ = offset(QP_INIT_ATTR, "recv_cq");
    static final long QP_INIT_ATTR_MAX_SEND_WR = offset(QP_INIT_ATTR, "cap.max_send_wr");
    static final long QP_INIT_ATTR_MAX_RECV_WR = offset(QP_INIT_ATTR, "cap.max_recv_wr");
    static final long QP_INIT_ATTR_MAX_SEND_SGE = offset(QP_INIT_ATTR, "cap.max_send_sge");
    static final long QP_INIT_ATTR_MAX_RECV_SGE = offset(QP_INIT_ATTR, "cap.max_recv_sge");
    static final long QP_INIT_ATTR_MAX_INLINE_DATA = offset(QP_INIT_ATTR, "cap.max_inline_data");
    static final long QP_INIT_ATTR_QP_TYPE = offset(QP_INIT_ATTR, "qp_type");
    static final long QP_INIT_ATTR_SQ_SIG_ALL = offset(QP_INIT_ATTR, "sq_sig_all");

    static final long QP_ATTR_QP_STATE = offset(QP_ATTR, "qp_state");
    static final long QP_ATTR_PATH_MTU = offset(QP_ATTR, "path_mtu");
    static final long QP_ATTR_RQ_PSN = offset(QP_ATTR, "rq_psn");
    static final long QP_ATTR_SQ_PSN = offset(QP_ATTR, "sq_psn");
    static final long QP_ATTR_DEST_QP_NUM = offset(QP_ATTR, "dest_qp_num");
    static final long QP_ATTR_QP_ACCESS_FLAGS = offset(QP_ATTR, "qp_access_flags");
    static final long QP_ATTR_AH_DGID = offset(QP_ATTR, "ah_attr.grh.dgid");
    static final long QP_ATTR_AH_FLOW_LABEL = offset(QP_ATTR, "ah_attr.grh.flow_label");
    static final long QP_ATTR_AH_SGID_INDEX = offset(QP_ATTR, "ah_attr.grh.sgid_index");
    static final long QP_ATTR_AH_HOP_LIMIT = offset(QP_ATTR, "ah_attr.grh.hop_limit");
    static final long QP_ATTR_AH_TRAFFIC_CLASS = offset(QP_ATTR, "ah_attr.grh.traffic_class");
    static final long QP_ATTR_AH_DLID = offset(QP_ATTR, "ah_attr.dlid");
    static final long QP_ATTR_AH_SL = offset(QP_ATTR, "ah_attr.sl");
    static final long QP_ATTR_AH_IS_GLOBAL = offset(QP_ATTR, "ah_attr.is_global");
    static final long QP_ATTR_AH_PORT_NUM = offset(QP_ATTR, "ah_attr.port_num");
    static final long QP_ATTR_PKEY_INDEX = offset(QP_ATTR, "pkey_index");
    static final long QP_ATTR_MAX_RD_ATOMIC = offset(QP_ATTR, "max_rd_atomic");
    static final long QP_ATTR_MAX_DEST_RD_ATOMIC = offset(QP_ATTR, "max_dest_rd_atomic");
    static final long QP_ATTR_MIN_RNR_TIMER = offset(QP_ATTR, "min_rnr_timer");
    static final long QP_ATTR_PORT_NUM = offset(QP_ATTR, "port_num");
    static final long QP_ATTR_TIMEOUT = offset(QP_ATTR, "timeout");
    static final long QP_ATTR_RETRY_CNT = offset(QP_ATTR, "retry_cnt");
    static final long QP_ATTR_RNR_RETRY = offset(QP_ATTR, "rnr_retry");

    static final long SGE_ADDR = offset(SGE, "addr");
    static final long SGE_LENGTH = offset(SGE, "length");
    static final long SGE_LKEY = offset(SGE, "lkey");

    static final long SEND_WR_WR_ID = offset(SEND_WR, "wr_id");
    static final long SEND_WR_NEXT = offset(SEND_WR, "next");
    static final long SEND_WR_SG_LIST = offset(SEND_WR, "sg_list");
    static final long SEND_WR_NUM_SGE = offset(SEND_WR, "num_sge");
    static final long SEND_WR_OPCODE = offset(SEND_WR, "opcode");
    static final long SEND_WR_SEND_FLAGS = offset(SEND_WR, "send_flags");
    static final long SEND_WR_IMM_DATA = offset(SEND_WR, "imm_data");
    static final long SEND_WR_REMOTE_ADDR = offset(SEND_WR, "wr.rdma.remote_addr");
    static final long SEND_WR_RKEY = offset(SEND_WR, "wr.rdma.rkey");

    static final long RECV_WR_WR_ID = offset(RECV_WR, "wr_id");
    static final long RECV_WR_NEXT = offset(RECV_WR, "next");
    static final long RECV_WR_SG_LIST = offset(RECV_WR, "sg_list");
    static final long RECV_WR_NUM_SGE = offset(RECV_WR, "num_sge");

    static final long WC_WR_ID = offset(WC, "wr_id");
    static final long WC_STATUS = offset(WC, "status");
    static final long WC_OPCODE = offset(WC, "opcode");
    static final long WC_BYTE_LEN = offset(WC, "byte_len");
    static final long WC_IMM_DATA = offset(WC, "imm_data");
    static final long WC_QP_NUM = offset(WC, "qp_num");
    static final long WC_WC_FLAGS = offset(WC, "wc_flags");
    static final long WC_SIZE = WC.byteSize();
}
