package io.ringwire.rdma.ibverbs;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The fake libibverbs of {@code src/test/c/fake_ibverbs.c}, built once per JVM, and its test hooks.
 * Load it into the provider with {@code new IbverbsProvider(FakeVerbs.library())} or the system
 * property {@link IbverbsProvider#LIBRARY_PROP}.
 */
@SuppressWarnings("restricted")
final class FakeVerbs
{
    // which attribute fake_qp_attr returns (enum in fake_ibverbs.c)
    static final int STATE = 0;
    static final int DEST_QPN = 1;
    static final int RQ_PSN = 2;
    static final int SQ_PSN = 3;
    static final int PATH_MTU = 4;
    static final int TIMEOUT = 5;
    static final int RETRY_CNT = 6;
    static final int RNR_RETRY = 7;
    static final int SGID_INDEX = 8;
    static final int IS_GLOBAL = 9;
    static final int HOP_LIMIT = 10;
    static final int PORT_NUM = 11;
    static final int ACCESS_FLAGS = 12;
    static final int MAX_SEND_WR = 13;
    static final int MAX_RECV_WR = 14;
    static final int MAX_INLINE = 15;
    static final int MIN_RNR_TIMER = 16;
    static final int MAX_RD_ATOMIC = 17;
    static final int MAX_DEST_RD_ATOMIC = 18;
    static final int PKEY_INDEX = 19;

    private static Path library;
    private static MethodHandle setMemlock;
    private static MethodHandle setNoDevice;
    private static MethodHandle qpAttr;
    private static MethodHandle qpDgid;
    private static MethodHandle lastImmediate;
    private static MethodHandle staleQueuePairCalls;
    private static MethodHandle liveCompletionQueues;

    private FakeVerbs()
    {
    }

    /**
     * @return the path of the built fake library.
     */
    static synchronized String library() throws Exception
    {
        if (null == library)
        {
            final Path directory = Files.createTempDirectory("ringwire-fake-ibverbs");
            directory.toFile().deleteOnExit();
            final Path built = directory.resolve("libfakeibverbs.so");
            NativeTestBuild.compile(NativeTestBuild.source("fake_ibverbs.c"), built, "-shared", "-fPIC", "-pthread");
            built.toFile().deleteOnExit();
            final SymbolLookup lookup = SymbolLookup.libraryLookup(built, Arena.global());
            final Linker linker = Linker.nativeLinker();
            setMemlock = linker.downcallHandle(lookup.find("fake_set_memlock").orElseThrow(),
                FunctionDescriptor.ofVoid(JAVA_LONG));
            setNoDevice = linker.downcallHandle(lookup.find("fake_set_no_device").orElseThrow(),
                FunctionDescriptor.ofVoid(JAVA_INT));
            qpAttr = linker.downcallHandle(lookup.find("fake_qp_attr").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
            qpDgid = linker.downcallHandle(lookup.find("fake_qp_dgid").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
            lastImmediate = linker.downcallHandle(lookup.find("fake_last_imm_host_order").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT));
            staleQueuePairCalls = linker.downcallHandle(lookup.find("fake_stale_qp_calls").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT));
            liveCompletionQueues = linker.downcallHandle(lookup.find("fake_live_cqs").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT));
            library = built;
        }
        return library.toString();
    }

    /**
     * @param bytes ibv_reg_mr fails with ENOMEM above this size; -1 for no limit.
     */
    static void memlock(final long bytes) throws Throwable
    {
        library();
        setMemlock.invokeExact(bytes);
    }

    /**
     * @param noDevice whether ibv_get_device_list returns NULL with ENOSYS.
     */
    static void noDevice(final boolean noDevice) throws Throwable
    {
        library();
        setNoDevice.invokeExact(noDevice ? 1 : 0);
    }

    /**
     * @param queuePairNumber a queue pair of the fake device.
     * @param which           one of the constants.
     * @return what ibv_modify_qp set (STATE: the current enum ibv_qp_state), -1 for an unknown queue pair.
     */
    static int attribute(final int queuePairNumber, final int which) throws Throwable
    {
        library();
        return (int)qpAttr.invokeExact(queuePairNumber, which);
    }

    /**
     * @param queuePairNumber a queue pair of the fake device.
     * @return the destination GID its RTR transition set.
     */
    static byte[] destinationGid(final int queuePairNumber) throws Throwable
    {
        library();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment out = arena.allocate(16);
            final int result = (int)qpDgid.invokeExact(queuePairNumber, out);
            if (result != 0)
            {
                throw new IllegalArgumentException("no fake queue pair " + queuePairNumber);
            }
            return out.toArray(JAVA_BYTE);
        }
    }

    /**
     * @return how many ibv_modify_qp/ibv_query_qp calls named a queue pair already destroyed (a
     *         real driver would have used freed memory).
     */
    static int staleQueuePairCalls() throws Throwable
    {
        library();
        return (int)staleQueuePairCalls.invokeExact();
    }

    /**
     * @return completion queues the fake driver created and has not destroyed.
     */
    static int liveCompletionQueues() throws Throwable
    {
        library();
        return (int)liveCompletionQueues.invokeExact();
    }

    /**
     * @return the immediate of the last WRITE WITH IMMEDIATE posted, decoded from network byte order.
     */
    static int lastImmediate() throws Throwable
    {
        library();
        return (int)lastImmediate.invokeExact();
    }
}
