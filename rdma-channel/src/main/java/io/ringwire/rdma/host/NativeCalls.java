package io.ringwire.rdma.host;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * What every foreign call of the providers shares: the segment a call captures errno in, and the
 * binding of a libc function.
 *
 * <p>Threading: stateless; the layouts and handles are immutable.
 */
@SuppressWarnings("restricted")
public final class NativeCalls
{
    /** The layout a call that captures errno writes it into; allocate one per call or per caller. */
    public static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    /** The option that makes a downcall capture errno into its leading {@link #CALL_STATE} argument. */
    public static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final VarHandle ERRNO = CALL_STATE.varHandle(groupElement("errno"));

    private NativeCalls()
    {
    }

    /**
     * @param state a {@link #CALL_STATE} a call captured errno in.
     * @return that errno.
     */
    public static int errno(final MemorySegment state)
    {
        return (int)ERRNO.get(state, 0L);
    }

    /**
     * @param what the calls' purpose, for the answer.
     * @return null on Linux on an architecture whose flag values and structure layouts the providers'
     *         libc calls use (amd64, aarch64, ppc64le, riscv64), else why {@code what} is unavailable.
     */
    public static String unsupportedPlatform(final String what)
    {
        final String os = System.getProperty("os.name", "");
        final String arch = System.getProperty("os.arch", "");
        if (os.startsWith("Linux") &&
            (arch.equals("amd64") || arch.equals("aarch64") || arch.equals("ppc64le") || arch.equals("riscv64")))
        {
            return null;
        }
        return what + " needs Linux on amd64, aarch64, ppc64le or riscv64, not " + os + " on " + arch;
    }

    /**
     * Binds a libc function.
     *
     * @param name       its symbol.
     * @param descriptor its signature.
     * @param options    linker options ({@link #CAPTURE_ERRNO}, variadic arguments, critical).
     * @return the handle.
     * @throws IllegalStateException when libc has no such symbol.
     */
    public static MethodHandle libc(final String name, final FunctionDescriptor descriptor,
        final Linker.Option... options)
    {
        final Linker linker = Linker.nativeLinker();
        return linker.downcallHandle(linker.defaultLookup().find(name)
            .orElseThrow(() -> new IllegalStateException("no " + name + " in libc")), descriptor, options);
    }
}
