package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.host.NativeCalls;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.ConcurrentHashMap;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

// "restricted": this class binds native functions or gives native pointers a size (FFM restricted methods);
// the JVM runs with --enable-native-access=ALL-UNNAMED (surefire argLine, ./ringwire, jar manifest).
/**
 * The control-path functions libibverbs exports, bound with {@code java.lang.foreign} (no JNI).
 * Each failing call throws {@link VerbsCallException} with the errno, captured right after the
 * call ({@code Linker.Option.captureCallState("errno")}).
 *
 * <p>Symbols, checked against rdma-core 44's {@code verbs.h} and {@code nm -D libibverbs.so.1}
 * ({@code dlsym} resolves the default version, {@code @@IBVERBS_1.1} unless noted):
 * <ul>
 *   <li>{@code ibv_query_port} is a macro in verbs.h for the static inline {@code ___ibv_query_port},
 *       which calls the driver through the private {@code verbs_context}, or falls back to the
 *       exported {@code ibv_query_port}. This class binds the exported symbol, which takes the
 *       shorter {@code struct _compat_ibv_port_attr} (see {@link VerbsLayouts#PORT_ATTR}).</li>
 *   <li>{@code ibv_reg_mr} is a macro for the static inline {@code __ibv_reg_mr}, which calls the
 *       exported {@code ibv_reg_mr} when no optional access flag ({@code IBV_ACCESS_OPTIONAL_RANGE})
 *       is set, else {@code ibv_reg_mr_iova2}. The access flags of this API are never optional, so
 *       the exported {@code ibv_reg_mr} is exactly what a C program would call.</li>
 *   <li>{@code ibv_get_device_list} is a macro only under {@code RDMA_STATIC_PROVIDERS} (static
 *       linking); the exported function is the one to call.</li>
 *   <li>{@code ibv_post_send}, {@code ibv_post_recv} and {@code ibv_poll_cq} are static inline and
 *       not exported at all: see {@link VerbsOps}.</li>
 * </ul>
 *
 * <p>Threading: libibverbs' control calls are thread-safe; one instance per library name is shared.
 */
@SuppressWarnings("restricted")
final class Verbs
{
    /** The library's soname. */
    static final String DEFAULT_LIBRARY = "libibverbs.so.1";

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = NativeCalls.CALL_STATE;
    private static final Linker.Option CAPTURE_ERRNO = NativeCalls.CAPTURE_ERRNO;
    private static final ConcurrentHashMap<String, Verbs> LOADED = new ConcurrentHashMap<>();

    private final String library;
    private final MethodHandle getDeviceList;
    private final MethodHandle freeDeviceList;
    private final MethodHandle getDeviceName;
    private final MethodHandle openDevice;
    private final MethodHandle closeDevice;
    private final MethodHandle queryDevice;
    private final MethodHandle queryPort;
    private final MethodHandle queryGid;
    private final MethodHandle allocPd;
    private final MethodHandle deallocPd;
    private final MethodHandle regMr;
    private final MethodHandle deregMr;
    private final MethodHandle createCq;
    private final MethodHandle destroyCq;
    private final MethodHandle createQp;
    private final MethodHandle destroyQp;
    private final MethodHandle modifyQp;
    private final MethodHandle queryQp;

    private Verbs(final String library, final SymbolLookup lookup)
    {
        this.library = library;
        getDeviceList = bind(lookup, "ibv_get_device_list", FunctionDescriptor.of(ADDRESS, ADDRESS));
        freeDeviceList = bind(lookup, "ibv_free_device_list", FunctionDescriptor.ofVoid(ADDRESS));
        getDeviceName = bind(lookup, "ibv_get_device_name", FunctionDescriptor.of(ADDRESS, ADDRESS));
        openDevice = bind(lookup, "ibv_open_device", FunctionDescriptor.of(ADDRESS, ADDRESS));
        closeDevice = bind(lookup, "ibv_close_device", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        queryDevice = bind(lookup, "ibv_query_device", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        queryPort = bind(lookup, "ibv_query_port", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS));
        queryGid = bind(lookup, "ibv_query_gid", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT, ADDRESS));
        allocPd = bind(lookup, "ibv_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS));
        deallocPd = bind(lookup, "ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        regMr = bind(lookup, "ibv_reg_mr", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
        deregMr = bind(lookup, "ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        createCq = bind(lookup, "ibv_create_cq",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        destroyCq = bind(lookup, "ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        createQp = bind(lookup, "ibv_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        destroyQp = bind(lookup, "ibv_destroy_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        modifyQp = bind(lookup, "ibv_modify_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        queryQp = bind(lookup, "ibv_query_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
    }

    /**
     * Loads the library once per name (it stays loaded for the life of the JVM).
     *
     * @param library soname or path, normally {@link #DEFAULT_LIBRARY}.
     * @return the bound functions.
     * @throws RdmaException when the library cannot be opened; the message says what to install.
     */
    static Verbs load(final String library)
    {
        final Verbs loaded = LOADED.get(library);
        if (null != loaded)
        {
            return loaded;
        }
        final SymbolLookup lookup;
        try
        {
            lookup = SymbolLookup.libraryLookup(library, Arena.global());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new RdmaException(libraryMissingMessage(library), ex);
        }
        return LOADED.computeIfAbsent(library, name -> new Verbs(name, lookup));
    }

    /**
     * @param library the library that could not be opened.
     * @return what to install, or which provider to use instead.
     */
    static String libraryMissingMessage(final String library)
    {
        return library + " not found: apt-get install libibverbs1 ibverbs-providers (or rdma-core); " +
            "or use provider socket";
    }

    private MethodHandle bind(final SymbolLookup lookup, final String name, final FunctionDescriptor descriptor)
    {
        final MemorySegment symbol = lookup.find(name).orElseThrow(() -> new RdmaException(
            library + " has no symbol " + name + ": it is not libibverbs, or older than rdma-core 17; " +
                "apt-get install libibverbs1 (or rdma-core), or use provider socket"));
        return LINKER.downcallHandle(symbol, descriptor, CAPTURE_ERRNO);
    }

    // ---------------------------------------------------------------- calls

    private static Object call(final MethodHandle handle, final MemorySegment callState, final Object... args)
    {
        final Object[] withState = new Object[args.length + 1];
        withState[0] = callState;
        System.arraycopy(args, 0, withState, 1, args.length);
        try
        {
            return handle.invokeWithArguments(withState);
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("unexpected checked exception from a downcall", ex);
        }
    }

    private static int errno(final MemorySegment callState)
    {
        return NativeCalls.errno(callState);
    }

    /** Calls a function returning a pointer that is NULL on failure, with errno set. */
    private static MemorySegment pointerCall(final String function, final MethodHandle handle, final Object... args)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment callState = arena.allocate(CALL_STATE);
            final MemorySegment result = (MemorySegment)call(handle, callState, args);
            if (MemorySegment.NULL.equals(result))
            {
                throw new VerbsCallException(function, errno(callState));
            }
            return result;
        }
    }

    /**
     * Calls a function returning 0 on success, else an errno value (rdma-core's convention), or -1
     * with errno set (older drivers), or a negated errno (some drivers).
     */
    private static void statusCall(final String function, final MethodHandle handle, final Object... args)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment callState = arena.allocate(CALL_STATE);
            final int result = (int)call(handle, callState, args);
            if (result != 0)
            {
                throw new VerbsCallException(function, result == -1 ? errno(callState) : Math.abs(result));
            }
        }
    }

    /**
     * {@code ibv_get_device_list}.
     *
     * @param count receives the number of devices (an int).
     * @return the NULL-terminated list; free it with {@link #freeDeviceList}.
     * @throws VerbsCallException when it returns NULL (ENOSYS: no RDMA in this kernel).
     */
    MemorySegment getDeviceList(final MemorySegment count)
    {
        return pointerCall("ibv_get_device_list", getDeviceList, count);
    }

    void freeDeviceList(final MemorySegment list)
    {
        try (Arena arena = Arena.ofConfined())
        {
            call(freeDeviceList, arena.allocate(CALL_STATE), list);
        }
    }

    String getDeviceName(final MemorySegment device)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment name = (MemorySegment)call(getDeviceName, arena.allocate(CALL_STATE), device);
            return MemorySegment.NULL.equals(name) ? "?" : name.reinterpret(Long.MAX_VALUE).getString(0);
        }
    }

    MemorySegment openDevice(final MemorySegment device)
    {
        return pointerCall("ibv_open_device", openDevice, device);
    }

    void closeDevice(final MemorySegment context)
    {
        statusCall("ibv_close_device", closeDevice, context);
    }

    void queryDevice(final MemorySegment context, final MemorySegment deviceAttr)
    {
        statusCall("ibv_query_device", queryDevice, context, deviceAttr);
    }

    void queryPort(final MemorySegment context, final int port, final MemorySegment portAttr)
    {
        statusCall("ibv_query_port", queryPort, context, (byte)port, portAttr);
    }

    void queryGid(final MemorySegment context, final int port, final int index, final MemorySegment gid)
    {
        statusCall("ibv_query_gid", queryGid, context, (byte)port, index, gid);
    }

    MemorySegment allocPd(final MemorySegment context)
    {
        return pointerCall("ibv_alloc_pd", allocPd, context);
    }

    void deallocPd(final MemorySegment pd)
    {
        statusCall("ibv_dealloc_pd", deallocPd, pd);
    }

    MemorySegment regMr(final MemorySegment pd, final MemorySegment address, final long length, final int access)
    {
        return pointerCall("ibv_reg_mr", regMr, pd, address, length, access);
    }

    void deregMr(final MemorySegment mr)
    {
        statusCall("ibv_dereg_mr", deregMr, mr);
    }

    MemorySegment createCq(final MemorySegment context, final int entries)
    {
        return pointerCall("ibv_create_cq", createCq, context, entries, MemorySegment.NULL, MemorySegment.NULL, 0);
    }

    void destroyCq(final MemorySegment cq)
    {
        statusCall("ibv_destroy_cq", destroyCq, cq);
    }

    MemorySegment createQp(final MemorySegment pd, final MemorySegment initAttr)
    {
        return pointerCall("ibv_create_qp", createQp, pd, initAttr);
    }

    void destroyQp(final MemorySegment qp)
    {
        statusCall("ibv_destroy_qp", destroyQp, qp);
    }

    void modifyQp(final MemorySegment qp, final MemorySegment attr, final int mask)
    {
        statusCall("ibv_modify_qp", modifyQp, qp, attr, mask);
    }

    void queryQp(final MemorySegment qp, final MemorySegment attr, final int mask, final MemorySegment initAttr)
    {
        statusCall("ibv_query_qp", queryQp, qp, attr, mask, initAttr);
    }
}
