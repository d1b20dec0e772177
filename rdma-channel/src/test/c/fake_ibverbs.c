/*
 * A fake libibverbs for the ibverbs provider's tests on machines without RDMA: it exports the
 * control functions the provider binds (ibv_get_device_list ... ibv_query_qp) and fills
 * ibv_context.ops with post_send, post_recv and poll_cq, implementing one RoCE device, "fake0",
 * whose queue pairs reach each other inside this process. It is compiled by the tests with gcc
 * against the real <infiniband/verbs.h> and loaded through the provider's library-name constructor
 * (or ringwire.rdma.ibverbs.library), so every struct the Java side writes is read here by C code
 * compiled from the header, and every struct the Java side reads was written here.
 *
 * Behaviour follows kernel rxe where the contract depends on it: requests execute synchronously
 * (at post, or when a missing receive is posted: an RNR wait that never gives up), the responder
 * checks rkey, access and bounds and fails the whole request, queue depths are rounded up to
 * 2^n - 1, posting a send outside RTS (and before ERR) fails with EINVAL, a failed request moves
 * both queue pairs to ERR and flushes what is outstanding with completions, signaled or not.
 * Where verbs leaves completion fields undefined (opcode and byte_len of errors, byte_len of send
 * completions), this fake writes garbage, so the provider must not rely on them.
 *
 * It also checks what the provider must guarantee: an INLINE payload must lie inside a registered
 * region (the driver copies it without an lkey check); otherwise it aborts the process.
 *
 * Test hooks: fake_set_memlock(bytes) makes ibv_reg_mr fail with ENOMEM above that size,
 * fake_set_no_device(1) makes ibv_get_device_list return NULL with ENOSYS, fake_qp_attr(qpn, which)
 * and fake_qp_dgid(qpn, out) report what ibv_modify_qp was given, fake_last_imm_host_order() the
 * immediate of the last WRITE WITH IMMEDIATE posted, read as the network-order value it must be.
 */
#define _GNU_SOURCE
#include <infiniband/verbs.h>
#undef ibv_query_port
#undef ibv_reg_mr
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MRS 4096
#define MAX_QPS 1024
#define MAX_INLINE 400
#define MAX_QP_WR 1024
#define GARBAGE 0xDEADBEEFu

/* One lock for the whole fake NIC. A spin lock: the provider's tests busy-poll from two threads, and a
 * sleeping mutex would make every hand-over a futex wake-up. */
static pthread_spinlock_t spin;
static pthread_once_t spin_once = PTHREAD_ONCE_INIT;
static void spin_init(void) { pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE); }
static void lock_nic(void) { pthread_once(&spin_once, spin_init); pthread_spin_lock(&spin); }
static void unlock_nic(void) { pthread_spin_unlock(&spin); }
static int sends_waiting; /* whether any queue pair may have a send to execute: progress() is a no-op otherwise */
static long memlock_limit = -1;
static int no_device;
static uint32_t last_imm_host_order;

struct fake_mr
{
    struct ibv_mr mr;
    int access;
};

struct fake_cq
{
    struct ibv_cq cq;
    struct ibv_wc *ring;
    int capacity;
    long head;
    long tail;
    int users;
    int overrun;
};

struct pending_send
{
    uint64_t wr_id;
    int opcode;
    unsigned int flags;
    uint32_t imm_data;
    uint64_t remote_addr;
    uint32_t rkey;
    uint64_t addr;
    uint32_t length;
    uint32_t lkey;
    int num_sge;
    char *inline_copy;
};

struct posted_recv
{
    uint64_t wr_id;
    uint64_t addr;
    uint32_t length;
    uint32_t lkey;
    int num_sge;
};

struct fake_qp
{
    struct ibv_qp qp;
    int state;
    int attrs[20];
    uint8_t dgid[16];
    struct pending_send *sq;
    int sq_capacity;
    long sq_head;
    long sq_tail;
    struct posted_recv *rq;
    int rq_capacity;
    long rq_head;
    long rq_tail;
    int max_inline;
};

enum { A_STATE, A_DEST_QPN, A_RQ_PSN, A_SQ_PSN, A_PATH_MTU, A_TIMEOUT, A_RETRY_CNT, A_RNR_RETRY, A_SGID_INDEX,
       A_IS_GLOBAL, A_HOP_LIMIT, A_PORT_NUM, A_ACCESS_FLAGS, A_MAX_SEND_WR, A_MAX_RECV_WR, A_MAX_INLINE,
       A_MIN_RNR_TIMER, A_MAX_RD_ATOMIC, A_MAX_DEST_RD_ATOMIC, A_PKEY_INDEX };

static struct fake_mr *mrs[MAX_MRS];
static unsigned int mr_generation;
static struct fake_qp *qps[MAX_QPS];
static uint32_t next_qpn = 0x11;
static struct ibv_device device;
static const uint8_t gid0[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
static const uint8_t gid1[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 9, 8, 7 };

/* ------------------------------------------------------------------ test hooks */

void fake_set_memlock(long bytes) { memlock_limit = bytes; }
void fake_set_no_device(int value) { no_device = value; }
uint32_t fake_last_imm_host_order(void) { return last_imm_host_order; }

/*
 * Calls that named a queue pair already destroyed: ibv_modify_qp and ibv_query_qp check the
 * pointer against the live ones (without dereferencing it) and fail with EINVAL instead of using
 * freed memory. A real driver would dereference it: fake_stale_qp_calls() must stay 0.
 */
static int stale_qp_calls;
int fake_stale_qp_calls(void) { return stale_qp_calls; }

/* Completion queues created and not yet destroyed: a CQ the provider forgot stays counted. */
static int live_cqs;
int fake_live_cqs(void) { return live_cqs; }

/* Under the NIC lock: whether ibqp is a live queue pair (compares pointers only). */
static int live_qp(const struct ibv_qp *ibqp)
{
    for (int i = 0; i < MAX_QPS; i++)
    {
        if (NULL != qps[i] && &qps[i]->qp == ibqp)
        {
            return 1;
        }
    }
    stale_qp_calls++;
    return 0;
}

static struct fake_qp *qp_by_number(uint32_t qpn)
{
    struct fake_qp *qp = qps[qpn % MAX_QPS];
    return qp && qp->qp.qp_num == qpn ? qp : NULL;
}

int fake_qp_attr(uint32_t qpn, int which)
{
    lock_nic();
    struct fake_qp *qp = qp_by_number(qpn);
    int value = qp && which >= 0 && which < 20 ? (which == A_STATE ? qp->state : qp->attrs[which]) : -1;
    unlock_nic();
    return value;
}

int fake_qp_dgid(uint32_t qpn, uint8_t *out)
{
    lock_nic();
    struct fake_qp *qp = qp_by_number(qpn);
    if (qp)
        memcpy(out, qp->dgid, 16);
    unlock_nic();
    return qp ? 0 : -1;
}

/* ------------------------------------------------------------------ memory regions */

static struct fake_mr *mr_by_key(uint32_t key)
{
    struct fake_mr *mr = mrs[(key >> 8) % MAX_MRS];
    return mr && mr->mr.lkey == key ? mr : NULL;
}

static int in_range(struct fake_mr *mr, uint64_t addr, uint32_t length)
{
    uint64_t start = (uint64_t)(uintptr_t)mr->mr.addr;
    return addr >= start && addr <= start + mr->mr.length && length <= start + mr->mr.length - addr;
}

static int inside_some_region(uint64_t addr, uint32_t length)
{
    for (int i = 0; i < MAX_MRS; i++)
        if (mrs[i] && in_range(mrs[i], addr, length))
            return 1;
    return 0;
}

/* ------------------------------------------------------------------ completions */

static void push(struct fake_cq *cq, struct ibv_wc *wc)
{
    if (cq->tail - cq->head >= cq->capacity)
    {
        cq->overrun = 1;
        return;
    }
    cq->ring[cq->tail % cq->capacity] = *wc;
    cq->tail++;
}

static void complete_send(struct fake_qp *qp, struct pending_send *send, int status)
{
    if (status == IBV_WC_SUCCESS && !(send->flags & IBV_SEND_SIGNALED))
        return;
    struct ibv_wc wc;
    memset(&wc, 0, sizeof wc);
    wc.wr_id = send->wr_id;
    wc.status = status;
    wc.opcode = status != IBV_WC_SUCCESS ? (enum ibv_wc_opcode)GARBAGE :
        send->opcode == IBV_WR_SEND ? IBV_WC_SEND : IBV_WC_RDMA_WRITE;
    wc.byte_len = GARBAGE; /* undefined for send completions */
    wc.qp_num = qp->qp.qp_num;
    push((struct fake_cq *)qp->qp.send_cq, &wc);
}

static void complete_recv(struct fake_qp *qp, struct posted_recv *recv, int status, int opcode, uint32_t length,
    uint32_t imm, int with_imm)
{
    struct ibv_wc wc;
    memset(&wc, 0, sizeof wc);
    wc.wr_id = recv->wr_id;
    wc.status = status;
    wc.qp_num = qp->qp.qp_num;
    if (status == IBV_WC_SUCCESS)
    {
        wc.opcode = opcode;
        wc.byte_len = length;
        wc.imm_data = imm;
        wc.wc_flags = with_imm ? IBV_WC_WITH_IMM : 0;
    }
    else
    {
        wc.opcode = (enum ibv_wc_opcode)GARBAGE;
        wc.byte_len = GARBAGE;
        wc.imm_data = GARBAGE;
    }
    push((struct fake_cq *)qp->qp.recv_cq, &wc);
}

static void release(struct pending_send *send)
{
    free(send->inline_copy);
    send->inline_copy = NULL;
}

/* Moves a queue pair to ERR and flushes everything outstanding, with completions. */
static void qp_error(struct fake_qp *qp)
{
    qp->state = IBV_QPS_ERR;
    while (qp->sq_head < qp->sq_tail)
    {
        struct pending_send *send = &qp->sq[qp->sq_head % qp->sq_capacity];
        complete_send(qp, send, IBV_WC_WR_FLUSH_ERR);
        release(send);
        qp->sq_head++;
    }
    while (qp->rq_head < qp->rq_tail)
    {
        complete_recv(qp, &qp->rq[qp->rq_head % qp->rq_capacity], IBV_WC_WR_FLUSH_ERR, 0, 0, 0, 0);
        qp->rq_head++;
    }
}

/* ------------------------------------------------------------------ the transport */

/* Executes the oldest send of a queue pair: its completion status, or -1 while waiting for a receive. */
static int execute(struct fake_qp *qp, struct pending_send *send)
{
    if (!(send->flags & IBV_SEND_INLINE) && send->num_sge > 0)
    {
        struct fake_mr *local = mr_by_key(send->lkey);
        if (!local || local->mr.pd != qp->qp.pd || !in_range(local, send->addr, send->length))
        {
            return IBV_WC_LOC_PROT_ERR;
        }
    }
    struct fake_qp *peer = qp_by_number((uint32_t)qp->attrs[A_DEST_QPN]);
    int reachable = memcmp(qp->dgid, gid1, 16) == 0 || memcmp(qp->dgid, gid0, 16) == 0;
    if (!reachable || !peer || peer->state < IBV_QPS_RTR || peer->state == IBV_QPS_ERR)
    {
        return IBV_WC_RETRY_EXC_ERR; /* nobody answers: retries run out */
    }
    const char *source = send->inline_copy ? send->inline_copy : (const char *)(uintptr_t)send->addr;
    uint32_t length = send->num_sge > 0 ? send->length : 0;
    int needs_receive = send->opcode != IBV_WR_RDMA_WRITE;
    if (needs_receive && peer->rq_head == peer->rq_tail)
        return -1; /* receiver not ready: wait (rnr_retry 7 retries forever) */
    struct posted_recv *recv = needs_receive ? &peer->rq[peer->rq_head % peer->rq_capacity] : NULL;
    if (send->opcode == IBV_WR_SEND)
    {
        uint32_t room = recv->num_sge > 0 ? recv->length : 0;
        struct fake_mr *target = mr_by_key(recv->lkey);
        if (length > room)
        {
            peer->rq_head++;
            complete_recv(peer, recv, IBV_WC_LOC_LEN_ERR, 0, 0, 0, 0);
            qp_error(peer);
            return IBV_WC_REM_INV_REQ_ERR;
        }
        if (length > 0 && (!target || !(target->access & IBV_ACCESS_LOCAL_WRITE) || !in_range(target, recv->addr, length)))
        {
            peer->rq_head++;
            complete_recv(peer, recv, IBV_WC_LOC_PROT_ERR, 0, 0, 0, 0);
            qp_error(peer);
            return IBV_WC_REM_OP_ERR;
        }
        memcpy((void *)(uintptr_t)recv->addr, source, length);
        peer->rq_head++;
        complete_recv(peer, recv, IBV_WC_SUCCESS, IBV_WC_RECV, length, 0, 0);
        return IBV_WC_SUCCESS;
    }
    struct fake_mr *target = mr_by_key(send->rkey);
    if (!target || !(target->access & IBV_ACCESS_REMOTE_WRITE) || target->mr.pd != peer->qp.pd ||
        !in_range(target, send->remote_addr, length))
    {
        if (recv)
        {
            peer->rq_head++;
            complete_recv(peer, recv, IBV_WC_REM_ACCESS_ERR, 0, 0, 0, 0);
        }
        qp_error(peer);
        return IBV_WC_REM_ACCESS_ERR;
    }
    memcpy((void *)(uintptr_t)send->remote_addr, source, length);
    if (recv)
    {
        peer->rq_head++;
        complete_recv(peer, recv, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, length, send->imm_data, 1);
    }
    return IBV_WC_SUCCESS;
}

/* Runs every queue pair's sends as far as they go. Called with the lock held. */
static void progress(void)
{
    if (!sends_waiting)
        return;
    sends_waiting = 0;
    for (int i = 0; i < MAX_QPS; i++)
    {
        struct fake_qp *qp = qps[i];
        while (qp && qp->state == IBV_QPS_RTS && qp->sq_head < qp->sq_tail)
        {
            struct pending_send *send = &qp->sq[qp->sq_head % qp->sq_capacity];
            int status = execute(qp, send);
            if (status < 0)
                break;
            qp->sq_head++;
            complete_send(qp, send, status);
            release(send);
            if (status != IBV_WC_SUCCESS)
                qp_error(qp); /* and so every later request is flushed */
        }
        if (qp && qp->state == IBV_QPS_RTS && qp->sq_head < qp->sq_tail)
            sends_waiting = 1; /* waiting for a receive */
    }
}

/* ------------------------------------------------------------------ ops */

static int fake_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
    struct fake_qp *qp = (struct fake_qp *)ibqp;
    int rc = 0;
    lock_nic();
    for (; wr; wr = wr->next)
    {
        if (qp->state != IBV_QPS_RTS && qp->state != IBV_QPS_ERR)
            rc = EINVAL;
        else if (wr->num_sge > 1 || wr->num_sge < 0 || wr->opcode > IBV_WR_SEND)
            rc = EINVAL;
        else if ((wr->send_flags & IBV_SEND_INLINE) && wr->num_sge == 1 && wr->sg_list[0].length > (uint32_t)qp->max_inline)
            rc = EINVAL;
        else if (qp->sq_tail - qp->sq_head >= qp->sq_capacity)
            rc = ENOMEM;
        if (rc)
        {
            *bad_wr = wr;
            break;
        }
        struct pending_send *send = &qp->sq[qp->sq_tail % qp->sq_capacity];
        memset(send, 0, sizeof *send);
        send->wr_id = wr->wr_id;
        send->opcode = wr->opcode;
        send->flags = wr->send_flags;
        send->imm_data = wr->imm_data;
        if (wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
            last_imm_host_order = ntohl(wr->imm_data); /* __be32: the caller must store network byte order */
        send->remote_addr = wr->wr.rdma.remote_addr;
        send->rkey = wr->wr.rdma.rkey;
        send->num_sge = wr->num_sge;
        if (wr->num_sge == 1)
        {
            send->addr = wr->sg_list[0].addr;
            send->length = wr->sg_list[0].length;
            send->lkey = wr->sg_list[0].lkey;
        }
        if ((wr->send_flags & IBV_SEND_INLINE) && send->num_sge == 1)
        {
            if (!inside_some_region(send->addr, send->length))
            {
                fprintf(stderr, "fake_ibverbs: INLINE payload [0x%llx, +%u) lies outside every registered region\n",
                    (unsigned long long)send->addr, send->length);
                abort();
            }
            send->inline_copy = malloc(send->length ? send->length : 1);
            memcpy(send->inline_copy, (const void *)(uintptr_t)send->addr, send->length);
        }
        qp->sq_tail++;
        sends_waiting = 1;
        if (qp->state == IBV_QPS_ERR)
        {
            complete_send(qp, send, IBV_WC_WR_FLUSH_ERR);
            release(send);
            qp->sq_head++;
        }
    }
    progress();
    unlock_nic();
    return rc;
}

static int fake_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
    struct fake_qp *qp = (struct fake_qp *)ibqp;
    int rc = 0;
    lock_nic();
    for (; wr; wr = wr->next)
    {
        if (qp->state == IBV_QPS_RESET || wr->num_sge > 1 || wr->num_sge < 0)
            rc = EINVAL;
        else if (qp->rq_tail - qp->rq_head >= qp->rq_capacity)
            rc = ENOMEM;
        if (rc)
        {
            *bad_wr = wr;
            break;
        }
        struct posted_recv *recv = &qp->rq[qp->rq_tail % qp->rq_capacity];
        recv->wr_id = wr->wr_id;
        recv->num_sge = wr->num_sge;
        recv->addr = wr->num_sge ? wr->sg_list[0].addr : 0;
        recv->length = wr->num_sge ? wr->sg_list[0].length : 0;
        recv->lkey = wr->num_sge ? wr->sg_list[0].lkey : 0;
        qp->rq_tail++; /* like rxe in Linux 6.1: a receive posted in ERR is queued, not flushed */
        sends_waiting = 1; /* a send may have been waiting for it */
    }
    progress();
    unlock_nic();
    return rc;
}

static int fake_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
    struct fake_cq *cq = (struct fake_cq *)ibcq;
    int polled = 0;
    lock_nic();
    progress();
    if (cq->overrun)
    {
        unlock_nic();
        return -1;
    }
    while (polled < num_entries && cq->head < cq->tail)
        wc[polled++] = cq->ring[cq->head++ % cq->capacity];
    unlock_nic();
    return polled;
}

/* ------------------------------------------------------------------ exported control functions */

struct ibv_device **ibv_get_device_list(int *num_devices)
{
    if (no_device)
    {
        errno = ENOSYS;
        return NULL;
    }
    strcpy(device.name, "fake0");
    struct ibv_device **list = calloc(2, sizeof *list);
    list[0] = &device;
    if (num_devices)
        *num_devices = 1;
    return list;
}

void ibv_free_device_list(struct ibv_device **list) { free(list); }

const char *ibv_get_device_name(struct ibv_device *dev) { return dev->name; }

struct ibv_context *ibv_open_device(struct ibv_device *dev)
{
    struct ibv_context *context = calloc(1, sizeof *context);
    context->device = dev;
    context->ops.post_send = fake_post_send;
    context->ops.post_recv = fake_post_recv;
    context->ops.poll_cq = fake_poll_cq;
    return context;
}

int ibv_close_device(struct ibv_context *context)
{
    free(context);
    return 0;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
    (void)context;
    memset(attr, 0, sizeof *attr);
    strcpy(attr->fw_ver, "fake 1.0");
    attr->max_qp_wr = MAX_QP_WR;
    attr->max_cqe = 65536;
    attr->max_mr_size = 1ULL << 40;
    attr->phys_port_cnt = 1;
    return 0;
}

int ibv_query_port(struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *compat)
{
    (void)context;
    if (port_num != 1)
        return EINVAL;
    /* Only the compat prefix (through 'flags') belongs to the caller. */
    struct ibv_port_attr *attr = (struct ibv_port_attr *)(void *)compat;
    memset(attr, 0, offsetof(struct ibv_port_attr, flags) + 1);
    attr->state = IBV_PORT_ACTIVE;
    attr->max_mtu = IBV_MTU_4096;
    attr->active_mtu = IBV_MTU_1024;
    attr->gid_tbl_len = 2;
    attr->max_msg_sz = 1u << 23;
    attr->link_layer = IBV_LINK_LAYER_ETHERNET;
    return 0;
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
    (void)context;
    if (port_num != 1 || index < 0 || index > 1)
        return EINVAL;
    memcpy(gid->raw, index == 0 ? gid0 : gid1, 16);
    return 0;
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
    struct ibv_pd *pd = calloc(1, sizeof *pd);
    pd->context = context;
    return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
    free(pd);
    return 0;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
    if ((access & IBV_ACCESS_REMOTE_WRITE) && !(access & IBV_ACCESS_LOCAL_WRITE))
    {
        errno = EINVAL;
        return NULL;
    }
    if (memlock_limit >= 0 && (long)length > memlock_limit)
    {
        errno = ENOMEM;
        return NULL;
    }
    lock_nic();
    int slot = -1;
    for (int i = 1; i < MAX_MRS && slot < 0; i++)
        if (!mrs[i])
            slot = i;
    if (slot < 0)
    {
        unlock_nic();
        errno = ENOMEM;
        return NULL;
    }
    struct fake_mr *mr = calloc(1, sizeof *mr);
    mr->mr.context = pd->context;
    mr->mr.pd = pd;
    mr->mr.addr = addr;
    mr->mr.length = length;
    mr->mr.lkey = mr->mr.rkey = ((uint32_t)slot << 8) | (++mr_generation & 0xff);
    mr->access = access;
    mrs[slot] = mr;
    unlock_nic();
    return &mr->mr;
}

int ibv_dereg_mr(struct ibv_mr *ibmr)
{
    lock_nic();
    mrs[(ibmr->lkey >> 8) % MAX_MRS] = NULL;
    unlock_nic();
    free(ibmr);
    return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context, struct ibv_comp_channel *channel,
    int comp_vector)
{
    (void)channel;
    (void)comp_vector;
    if (cqe < 1 || cqe > 65536)
    {
        errno = EINVAL;
        return NULL;
    }
    struct fake_cq *cq = calloc(1, sizeof *cq);
    cq->cq.context = context;
    cq->cq.cq_context = cq_context;
    cq->cq.cqe = cqe;
    cq->capacity = cqe;
    cq->ring = calloc((size_t)cqe, sizeof *cq->ring);
    live_cqs++;
    return &cq->cq;
}

int ibv_destroy_cq(struct ibv_cq *ibcq)
{
    struct fake_cq *cq = (struct fake_cq *)ibcq;
    if (cq->users > 0)
        return EBUSY;
    free(cq->ring);
    free(cq);
    live_cqs--;
    return 0;
}

static int round_up(int n)
{
    int slots = 1;
    while (slots < n + 1)
        slots <<= 1;
    return slots - 1;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *init)
{
    if (init->qp_type != IBV_QPT_RC || init->srq || init->cap.max_inline_data > MAX_INLINE ||
        init->cap.max_send_wr < 1 || init->cap.max_send_wr > MAX_QP_WR || init->cap.max_recv_wr > MAX_QP_WR ||
        init->cap.max_send_sge > 1 || init->cap.max_recv_sge > 1 || !init->send_cq || !init->recv_cq)
    {
        errno = EINVAL;
        return NULL;
    }
    lock_nic();
    struct fake_qp *qp = calloc(1, sizeof *qp);
    while (qps[next_qpn % MAX_QPS])
        next_qpn++;
    qp->qp.qp_num = next_qpn++;
    qp->qp.context = pd->context;
    qp->qp.pd = pd;
    qp->qp.send_cq = init->send_cq;
    qp->qp.recv_cq = init->recv_cq;
    qp->qp.qp_type = IBV_QPT_RC;
    qp->qp.state = IBV_QPS_RESET;
    qp->state = IBV_QPS_RESET;
    qp->sq_capacity = round_up((int)init->cap.max_send_wr);
    qp->rq_capacity = round_up((int)(init->cap.max_recv_wr ? init->cap.max_recv_wr : 1));
    qp->sq = calloc((size_t)qp->sq_capacity, sizeof *qp->sq);
    qp->rq = calloc((size_t)qp->rq_capacity, sizeof *qp->rq);
    qp->max_inline = (int)init->cap.max_inline_data;
    init->cap.max_send_wr = (uint32_t)qp->sq_capacity;
    init->cap.max_recv_wr = (uint32_t)qp->rq_capacity;
    qp->attrs[A_MAX_SEND_WR] = qp->sq_capacity;
    qp->attrs[A_MAX_RECV_WR] = qp->rq_capacity;
    qp->attrs[A_MAX_INLINE] = qp->max_inline;
    ((struct fake_cq *)init->send_cq)->users++;
    ((struct fake_cq *)init->recv_cq)->users++;
    qps[qp->qp.qp_num % MAX_QPS] = qp;
    unlock_nic();
    return &qp->qp;
}

int ibv_destroy_qp(struct ibv_qp *ibqp)
{
    struct fake_qp *qp = (struct fake_qp *)ibqp;
    lock_nic();
    qps[qp->qp.qp_num % MAX_QPS] = NULL;
    while (qp->sq_head < qp->sq_tail)
        release(&qp->sq[qp->sq_head++ % qp->sq_capacity]);
    ((struct fake_cq *)qp->qp.send_cq)->users--;
    ((struct fake_cq *)qp->qp.recv_cq)->users--;
    unlock_nic();
    free(qp->sq);
    free(qp->rq);
    free(qp);
    return 0;
}

static int has(int mask, int required)
{
    return (mask & required) == required;
}

int ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
    struct fake_qp *qp = (struct fake_qp *)ibqp;
    int rc = 0;
    lock_nic();
    if (!live_qp(ibqp))
    {
        unlock_nic();
        errno = EINVAL;
        return EINVAL;
    }
    int from = qp->state;
    int to = (mask & IBV_QP_STATE) ? (int)attr->qp_state : from;
    if (to == IBV_QPS_ERR)
    {
        qp_error(qp);
    }
    else if (from == IBV_QPS_RESET && to == IBV_QPS_INIT &&
        has(mask, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) && attr->port_num == 1)
    {
        qp->attrs[A_PKEY_INDEX] = attr->pkey_index;
        qp->attrs[A_PORT_NUM] = attr->port_num;
        qp->attrs[A_ACCESS_FLAGS] = (int)attr->qp_access_flags;
        qp->state = to;
    }
    else if (from == IBV_QPS_INIT && to == IBV_QPS_RTR &&
        has(mask, IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
            IBV_QP_MIN_RNR_TIMER) &&
        attr->ah_attr.is_global == 1 && attr->ah_attr.grh.sgid_index < 2 && attr->ah_attr.port_num == 1 &&
        attr->path_mtu >= IBV_MTU_256 && attr->path_mtu <= IBV_MTU_1024)
    {
        qp->attrs[A_DEST_QPN] = (int)attr->dest_qp_num;
        qp->attrs[A_RQ_PSN] = (int)attr->rq_psn;
        qp->attrs[A_PATH_MTU] = attr->path_mtu;
        qp->attrs[A_SGID_INDEX] = attr->ah_attr.grh.sgid_index;
        qp->attrs[A_IS_GLOBAL] = attr->ah_attr.is_global;
        qp->attrs[A_HOP_LIMIT] = attr->ah_attr.grh.hop_limit;
        qp->attrs[A_MIN_RNR_TIMER] = attr->min_rnr_timer;
        qp->attrs[A_MAX_DEST_RD_ATOMIC] = attr->max_dest_rd_atomic;
        memcpy(qp->dgid, attr->ah_attr.grh.dgid.raw, 16);
        qp->state = to;
    }
    else if (from == IBV_QPS_RTR && to == IBV_QPS_RTS &&
        has(mask, IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) &&
        attr->timeout > 0 && attr->timeout < 32 && attr->retry_cnt <= 7 && attr->rnr_retry <= 7)
    {
        qp->attrs[A_TIMEOUT] = attr->timeout;
        qp->attrs[A_RETRY_CNT] = attr->retry_cnt;
        qp->attrs[A_RNR_RETRY] = attr->rnr_retry;
        qp->attrs[A_SQ_PSN] = (int)attr->sq_psn;
        qp->attrs[A_MAX_RD_ATOMIC] = attr->max_rd_atomic;
        qp->state = to;
    }
    else
    {
        rc = EINVAL;
    }
    qp->qp.state = (enum ibv_qp_state)qp->state;
    progress();
    unlock_nic();
    return rc;
}

int ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask, struct ibv_qp_init_attr *init)
{
    (void)mask;
    (void)init;
    struct fake_qp *qp = (struct fake_qp *)ibqp;
    lock_nic();
    if (!live_qp(ibqp))
    {
        unlock_nic();
        errno = EINVAL;
        return EINVAL;
    }
    attr->qp_state = (enum ibv_qp_state)qp->state;
    unlock_nic();
    return 0;
}
