/*
 * Prints the size of every libibverbs struct the ibverbs provider uses, and the offset and size of
 * every member it reads or writes, as compiled against the installed <infiniband/verbs.h>.
 * IbverbsLayoutTest compiles this with gcc, runs it and compares each line with the Java layouts in
 * io.ringwire.rdma.ibverbs.VerbsLayouts.
 *
 * Output, one record per line:
 *   struct <c-name> <sizeof>
 *   field <c-name> <member.path> <offsetof> <sizeof>
 */
#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdio.h>

#define STRUCT(T) printf("struct %s %zu\n", #T, sizeof(struct T))
#define UNION(T) printf("struct %s %zu\n", #T, sizeof(union T))
#define FIELD(T, M) printf("field %s %s %zu %zu\n", #T, #M, offsetof(struct T, M), sizeof(((struct T *)0)->M))
#define UFIELD(T, M) printf("field %s %s %zu %zu\n", #T, #M, offsetof(union T, M), sizeof(((union T *)0)->M))

int main(void)
{
    UNION(ibv_gid);
    UFIELD(ibv_gid, raw);
    UFIELD(ibv_gid, global.subnet_prefix);
    UFIELD(ibv_gid, global.interface_id);

    STRUCT(ibv_device_attr);
    FIELD(ibv_device_attr, fw_ver);
    FIELD(ibv_device_attr, node_guid);
    FIELD(ibv_device_attr, max_mr_size);
    FIELD(ibv_device_attr, vendor_id);
    FIELD(ibv_device_attr, vendor_part_id);
    FIELD(ibv_device_attr, max_qp);
    FIELD(ibv_device_attr, max_qp_wr);
    FIELD(ibv_device_attr, max_sge);
    FIELD(ibv_device_attr, max_cq);
    FIELD(ibv_device_attr, max_cqe);
    FIELD(ibv_device_attr, max_mr);
    FIELD(ibv_device_attr, max_pd);
    FIELD(ibv_device_attr, max_qp_rd_atom);
    FIELD(ibv_device_attr, atomic_cap);
    FIELD(ibv_device_attr, max_srq_sge);
    FIELD(ibv_device_attr, max_pkeys);
    FIELD(ibv_device_attr, local_ca_ack_delay);
    FIELD(ibv_device_attr, phys_port_cnt);

    STRUCT(ibv_port_attr);
    FIELD(ibv_port_attr, state);
    FIELD(ibv_port_attr, max_mtu);
    FIELD(ibv_port_attr, active_mtu);
    FIELD(ibv_port_attr, gid_tbl_len);
    FIELD(ibv_port_attr, port_cap_flags);
    FIELD(ibv_port_attr, max_msg_sz);
    FIELD(ibv_port_attr, pkey_tbl_len);
    FIELD(ibv_port_attr, lid);
    FIELD(ibv_port_attr, active_width);
    FIELD(ibv_port_attr, active_speed);
    FIELD(ibv_port_attr, phys_state);
    FIELD(ibv_port_attr, link_layer);
    FIELD(ibv_port_attr, flags);
    FIELD(ibv_port_attr, port_cap_flags2);

    STRUCT(ibv_context_ops);
    FIELD(ibv_context_ops, _compat_query_device);
    FIELD(ibv_context_ops, alloc_mw);
    FIELD(ibv_context_ops, poll_cq);
    FIELD(ibv_context_ops, req_notify_cq);
    FIELD(ibv_context_ops, post_srq_recv);
    FIELD(ibv_context_ops, post_send);
    FIELD(ibv_context_ops, post_recv);
    FIELD(ibv_context_ops, _compat_async_event);

    STRUCT(ibv_context);
    FIELD(ibv_context, device);
    FIELD(ibv_context, ops);
    FIELD(ibv_context, ops.poll_cq);
    FIELD(ibv_context, ops.post_send);
    FIELD(ibv_context, ops.post_recv);
    FIELD(ibv_context, cmd_fd);
    FIELD(ibv_context, num_comp_vectors);
    FIELD(ibv_context, mutex);
    FIELD(ibv_context, abi_compat);

    STRUCT(ibv_pd);
    FIELD(ibv_pd, context);
    FIELD(ibv_pd, handle);

    STRUCT(ibv_mr);
    FIELD(ibv_mr, context);
    FIELD(ibv_mr, pd);
    FIELD(ibv_mr, addr);
    FIELD(ibv_mr, length);
    FIELD(ibv_mr, handle);
    FIELD(ibv_mr, lkey);
    FIELD(ibv_mr, rkey);

    STRUCT(ibv_cq);
    FIELD(ibv_cq, context);
    FIELD(ibv_cq, handle);
    FIELD(ibv_cq, cqe);
    FIELD(ibv_cq, mutex);
    FIELD(ibv_cq, cond);
    FIELD(ibv_cq, comp_events_completed);
    FIELD(ibv_cq, async_events_completed);

    STRUCT(ibv_qp);
    FIELD(ibv_qp, context);
    FIELD(ibv_qp, pd);
    FIELD(ibv_qp, send_cq);
    FIELD(ibv_qp, recv_cq);
    FIELD(ibv_qp, handle);
    FIELD(ibv_qp, qp_num);
    FIELD(ibv_qp, state);
    FIELD(ibv_qp, qp_type);
    FIELD(ibv_qp, mutex);
    FIELD(ibv_qp, cond);
    FIELD(ibv_qp, events_completed);

    STRUCT(ibv_qp_cap);
    FIELD(ibv_qp_cap, max_send_wr);
    FIELD(ibv_qp_cap, max_recv_wr);
    FIELD(ibv_qp_cap, max_send_sge);
    FIELD(ibv_qp_cap, max_recv_sge);
    FIELD(ibv_qp_cap, max_inline_data);

    STRUCT(ibv_qp_init_attr);
    FIELD(ibv_qp_init_attr, qp_context);
    FIELD(ibv_qp_init_attr, send_cq);
    FIELD(ibv_qp_init_attr, recv_cq);
    FIELD(ibv_qp_init_attr, srq);
    FIELD(ibv_qp_init_attr, cap);
    FIELD(ibv_qp_init_attr, cap.max_send_wr);
    FIELD(ibv_qp_init_attr, cap.max_recv_wr);
    FIELD(ibv_qp_init_attr, cap.max_send_sge);
    FIELD(ibv_qp_init_attr, cap.max_recv_sge);
    FIELD(ibv_qp_init_attr, cap.max_inline_data);
    FIELD(ibv_qp_init_attr, qp_type);
    FIELD(ibv_qp_init_attr, sq_sig_all);

    STRUCT(ibv_global_route);
    FIELD(ibv_global_route, dgid);
    FIELD(ibv_global_route, flow_label);
    FIELD(ibv_global_route, sgid_index);
    FIELD(ibv_global_route, hop_limit);
    FIELD(ibv_global_route, traffic_class);

    STRUCT(ibv_ah_attr);
    FIELD(ibv_ah_attr, grh);
    FIELD(ibv_ah_attr, grh.dgid);
    FIELD(ibv_ah_attr, dlid);
    FIELD(ibv_ah_attr, sl);
    FIELD(ibv_ah_attr, src_path_bits);
    FIELD(ibv_ah_attr, static_rate);
    FIELD(ibv_ah_attr, is_global);
    FIELD(ibv_ah_attr, port_num);

    STRUCT(ibv_qp_attr);
    FIELD(ibv_qp_attr, qp_state);
    FIELD(ibv_qp_attr, cur_qp_state);
    FIELD(ibv_qp_attr, path_mtu);
    FIELD(ibv_qp_attr, qkey);
    FIELD(ibv_qp_attr, rq_psn);
    FIELD(ibv_qp_attr, sq_psn);
    FIELD(ibv_qp_attr, dest_qp_num);
    FIELD(ibv_qp_attr, qp_access_flags);
    FIELD(ibv_qp_attr, cap);
    FIELD(ibv_qp_attr, ah_attr);
    FIELD(ibv_qp_attr, ah_attr.grh.dgid);
    FIELD(ibv_qp_attr, ah_attr.grh.flow_label);
    FIELD(ibv_qp_attr, ah_attr.grh.sgid_index);
    FIELD(ibv_qp_attr, ah_attr.grh.hop_limit);
    FIELD(ibv_qp_attr, ah_attr.grh.traffic_class);
    FIELD(ibv_qp_attr, ah_attr.dlid);
    FIELD(ibv_qp_attr, ah_attr.sl);
    FIELD(ibv_qp_attr, ah_attr.is_global);
    FIELD(ibv_qp_attr, ah_attr.port_num);
    FIELD(ibv_qp_attr, alt_ah_attr);
    FIELD(ibv_qp_attr, pkey_index);
    FIELD(ibv_qp_attr, alt_pkey_index);
    FIELD(ibv_qp_attr, max_rd_atomic);
    FIELD(ibv_qp_attr, max_dest_rd_atomic);
    FIELD(ibv_qp_attr, min_rnr_timer);
    FIELD(ibv_qp_attr, port_num);
    FIELD(ibv_qp_attr, timeout);
    FIELD(ibv_qp_attr, retry_cnt);
    FIELD(ibv_qp_attr, rnr_retry);
    FIELD(ibv_qp_attr, alt_port_num);
    FIELD(ibv_qp_attr, alt_timeout);
    FIELD(ibv_qp_attr, rate_limit);

    STRUCT(ibv_sge);
    FIELD(ibv_sge, addr);
    FIELD(ibv_sge, length);
    FIELD(ibv_sge, lkey);

    STRUCT(ibv_send_wr);
    FIELD(ibv_send_wr, wr_id);
    FIELD(ibv_send_wr, next);
    FIELD(ibv_send_wr, sg_list);
    FIELD(ibv_send_wr, num_sge);
    FIELD(ibv_send_wr, opcode);
    FIELD(ibv_send_wr, send_flags);
    FIELD(ibv_send_wr, imm_data);
    FIELD(ibv_send_wr, wr);
    FIELD(ibv_send_wr, wr.rdma.remote_addr);
    FIELD(ibv_send_wr, wr.rdma.rkey);
    FIELD(ibv_send_wr, wr.atomic.rkey);
    FIELD(ibv_send_wr, wr.ud.remote_qkey);
    FIELD(ibv_send_wr, qp_type);
    FIELD(ibv_send_wr, qp_type.xrc.remote_srqn);
    FIELD(ibv_send_wr, bind_mw);
    FIELD(ibv_send_wr, bind_mw.bind_info.mw_access_flags);
    FIELD(ibv_send_wr, tso);

    STRUCT(ibv_recv_wr);
    FIELD(ibv_recv_wr, wr_id);
    FIELD(ibv_recv_wr, next);
    FIELD(ibv_recv_wr, sg_list);
    FIELD(ibv_recv_wr, num_sge);

    STRUCT(ibv_wc);
    FIELD(ibv_wc, wr_id);
    FIELD(ibv_wc, status);
    FIELD(ibv_wc, opcode);
    FIELD(ibv_wc, vendor_err);
    FIELD(ibv_wc, byte_len);
    FIELD(ibv_wc, imm_data);
    FIELD(ibv_wc, qp_num);
    FIELD(ibv_wc, src_qp);
    FIELD(ibv_wc, wc_flags);
    FIELD(ibv_wc, pkey_index);
    FIELD(ibv_wc, slid);
    FIELD(ibv_wc, sl);
    FIELD(ibv_wc, dlid_path_bits);
    return 0;
}
