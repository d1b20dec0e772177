package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.RdmaException;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

// "restricted": this class binds native functions or gives native pointers a size (FFM restricted methods);
// the JVM runs with --enable-native-access=ALL-UNNAMED (surefire argLine, ./ringwire, jar manifest).
/**
 * The hot-path verbs: {@code ibv_post_send}, {@code ibv_post_recv} and {@code ibv_poll_cq} are static
 * inline functions in verbs.h, not exported symbols:
 * <pre>
 *   return qp-&gt;context-&gt;ops.post_send(qp, wr, bad_wr);
 *   return qp-&gt;context-&gt;ops.post_recv(qp, wr, bad_wr);
 *   return cq-&gt;context-&gt;ops.poll_cq(cq, num_entries, wc);
 * </pre>
 * so this class reads the three function pointers from the context's {@code struct ibv_context_ops}
 * once, at device open, and calls them through address-taking downcall handles held in
 * {@code static final} fields (constant to the JIT; the target address is the first argument).
 *
 * <p>The handles are {@link Linker.Option#critical(boolean) critical}: no Java-to-native thread state
 * transition, which these calls do not need (they never call back into Java and return quickly: on
 * real NICs they write a work queue entry and ring a doorbell, on rxe they also make one short
 * system call to kick the kernel), and they are called with segments of the global scope, so no
 * arena is acquired per call. Nothing here allocates.
 */
@SuppressWarnings("restricted")
final class VerbsOps
{
    /**
     * {@code int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **)} and
     * {@code int (*post_recv)(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **)}: one
     * signature, so one handle calls either (the target address is its first argument).
     */
    private static final MethodHandle POST = Linker.nativeLinker().downcallHandle(
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), Linker.Option.critical(false));

    /** {@code int (*poll_cq)(struct ibv_cq *, int, struct ibv_wc *)}. */
    static final MethodHandle POLL_CQ = Linker.nativeLinker().downcallHandle(
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), Linker.Option.critical(false));

    private final MemorySegment postSend;
    private final MemorySegment postRecv;
    private final MemorySegment pollCq;

    /**
     * Reads the driver's function pointers.
     *
     * @param context an open {@code struct ibv_context *}.
     * @param device  its name, for the error message.
     */
    VerbsOps(final MemorySegment context, final String device)
    {
        final MemorySegment ops = context.reinterpret(VerbsLayouts.CONTEXT.byteSize());
        postSend = ops.get(ADDRESS, VerbsLayouts.CONTEXT_OPS_POST_SEND);
        postRecv = ops.get(ADDRESS, VerbsLayouts.CONTEXT_OPS_POST_RECV);
        pollCq = ops.get(ADDRESS, VerbsLayouts.CONTEXT_OPS_POLL_CQ);
        if (MemorySegment.NULL.equals(postSend) || MemorySegment.NULL.equals(postRecv) ||
            MemorySegment.NULL.equals(pollCq))
        {
            throw new RdmaException("the libibverbs driver of " + device + " left post_send, post_recv or poll_cq " +
                "empty in ibv_context.ops: its provider library (ibverbs-providers) does not match libibverbs; " +
                "reinstall rdma-core/ibverbs-providers of one version");
        }
    }

    /**
     * Calls the driver's {@code post_send} or {@code post_recv}. Allocation-free.
     *
     * @param function    {@link #postSend()} or {@link #postRecv()}.
     * @param qp          the {@code struct ibv_qp *}.
     * @param workRequest the send or receive work request.
     * @param badRequest  where the driver names a refused request.
     * @return 0, or the errno value the driver returned.
     */
    static int post(final MemorySegment function, final MemorySegment qp, final MemorySegment workRequest,
        final MemorySegment badRequest)
    {
        try
        {
            return (int)POST.invokeExact(function, qp, workRequest, badRequest);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("post downcall failed", ex);
        }
    }

    /**
     * @return the driver's {@code post_send}.
     */
    MemorySegment postSend()
    {
        return postSend;
    }

    /**
     * @return the driver's {@code post_recv}.
     */
    MemorySegment postRecv()
    {
        return postRecv;
    }

    /**
     * @return the driver's {@code poll_cq}.
     */
    MemorySegment pollCq()
    {
        return pollCq;
    }
}
