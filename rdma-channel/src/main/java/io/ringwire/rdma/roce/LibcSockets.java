package io.ringwire.rdma.roce;

import io.ringwire.rdma.host.NativeCalls;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The libc socket calls roce makes where the JDK's channels cannot reach (a socket's error queue,
 * raw IP and packet sockets, socket filters, a packet socket's mapped ring), bound once with the
 * foreign function API, with their constants and the set-up steps {@link ConnectedUdpSocket},
 * {@link RawUdpReceiver}, {@link PacketFanout} and {@link PacketRing} take. Linux on 64-bit only;
 * elsewhere {@link Functions#unavailable()} says why and callers fall back.
 *
 * <p>Threading: stateless; the handles are immutable.
 */
final class LibcSockets
{
    static final int AF_INET = 2;
    static final int AF_PACKET = 17;
    /** Bytes of a {@code struct sockaddr_ll}. */
    static final int SOCKADDR_LL_LENGTH = 20;
    static final int SOCK_DGRAM = 2;
    static final int SOCK_RAW = 3;
    static final int SOCK_NONBLOCK = 0x800;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int SOL_SOCKET = 1;
    static final int IPPROTO_IP = 0;
    static final int IPPROTO_UDP = 17;
    static final int MSG_DONTWAIT = 0x40;
    /** errno of a caller without the capability a call needs (CAP_NET_RAW for raw sockets). */
    static final int EPERM = 1;
    static final int EACCES = 13;

    /** struct sock_fprog on LP64: u16 length, padding, pointer to the instructions. */
    private static final int FILTER_PROGRAM_LENGTH = 16;
    private static final int BPF_INSTRUCTION_LENGTH = 8;

    /** What libc writes errno into, per call. */
    static final StructLayout CALL_STATE = NativeCalls.CALL_STATE;
    /** The handles, or why they could not be made. */
    static final Functions LIBC = Functions.load();

    private LibcSockets()
    {
    }

    /** The libc functions, or why they are not there. */
    record Functions(
        MethodHandle socket, MethodHandle setsockopt, MethodHandle getsockopt, MethodHandle bind,
        MethodHandle connect, MethodHandle getsockname, MethodHandle send, MethodHandle sendto, MethodHandle recv,
        MethodHandle recvmsg, MethodHandle close, MethodHandle mmap, MethodHandle munmap, String unavailable)
    {
        static Functions load()
        {
            if (!System.getProperty("os.name", "").startsWith("Linux") || ADDRESS.byteSize() != 8)
            {
                return unavailable("not 64-bit Linux");
            }
            try
            {
                final Linker.Option errno = NativeCalls.CAPTURE_ERRNO;
                // send and recv are short and never block (MSG_DONTWAIT): no thread state transition for
                // them. The calls a sender may repeat while back-pressured (send, recv, sendto, recvmsg)
                // do not capture errno: the capture takes a slice of the state segment per call, an
                // allocation the JIT does not always remove, and their callers need only to know that
                // they failed.
                return new Functions(
                    NativeCalls.libc("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), errno),
                    NativeCalls.libc("setsockopt",
                        FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), errno),
                    NativeCalls.libc("getsockopt",
                        FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), errno),
                    NativeCalls.libc("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), errno),
                    NativeCalls.libc("connect", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), errno),
                    NativeCalls.libc("getsockname", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), errno),
                    NativeCalls.libc("send", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT),
                        Linker.Option.critical(false)),
                    NativeCalls.libc("sendto",
                        FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT)),
                    NativeCalls.libc("recv", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT),
                        Linker.Option.critical(false)),
                    NativeCalls.libc("recvmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT)),
                    NativeCalls.libc("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT)),
                    NativeCalls.libc("mmap",
                        FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG),
                        errno),
                    NativeCalls.libc("munmap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG)),
                    null);
            }
            catch (final RuntimeException ex)
            {
                return unavailable("libc sockets not callable: " + ex.getMessage());
            }
        }

        private static Functions unavailable(final String reason)
        {
            return new Functions(null, null, null, null, null, null, null, null, null, null, null, null, null, reason);
        }
    }

    /** Thrown by the set-up steps; the provider falls back on it. */
    static final class Unavailable extends Exception
    {
        private static final long serialVersionUID = 1L;

        /** The errno of the call that failed, or 0. */
        final int errno;

        Unavailable(final String message)
        {
            this(message, 0);
        }

        Unavailable(final String message, final int errno)
        {
            super(message, null, false, false);
            this.errno = errno;
        }
    }

    /**
     * @param state a {@link #CALL_STATE} a call captured errno in.
     * @return that errno.
     */
    static int errno(final MemorySegment state)
    {
        return NativeCalls.errno(state);
    }

    /**
     * Opens a non-blocking, close-on-exec IPv4 socket.
     *
     * @param type     {@link #SOCK_DGRAM} or {@link #SOCK_RAW}.
     * @param protocol 0, or {@link #IPPROTO_UDP} for a raw socket that receives UDP.
     * @return the descriptor.
     * @throws Unavailable with the errno when libc refuses (EPERM: no CAP_NET_RAW for a raw socket).
     */
    static int openSocket(final int type, final int protocol) throws Unavailable
    {
        return openSocket(AF_INET, type, protocol);
    }

    /**
     * Opens a non-blocking socket of any family.
     *
     * @param family   {@link #AF_INET} or {@link #AF_PACKET}.
     * @param type     {@link #SOCK_DGRAM} or {@link #SOCK_RAW}.
     * @param protocol the family's protocol number (for {@link #AF_PACKET}, the EtherType in network order).
     * @return the descriptor.
     * @throws Unavailable when libc cannot be called or socket() fails (with its errno).
     */
    static int openSocket(final int family, final int type, final int protocol) throws Unavailable
    {
        if (null != LIBC.unavailable())
        {
            throw new Unavailable(LIBC.unavailable());
        }
        try (Arena setup = Arena.ofConfined())
        {
            final MemorySegment state = setup.allocate(CALL_STATE);
            final int fd = (int)LIBC.socket().invokeExact(state, family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol);
            if (fd < 0)
            {
                throw new Unavailable("socket() failed: errno " + errno(state), errno(state));
            }
            return fd;
        }
        catch (final Unavailable ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new Unavailable("libc socket() not callable: " + ex);
        }
    }

    /**
     * Sets an int socket option.
     *
     * @param fd     the socket.
     * @param state  call state for errno.
     * @param option four bytes of scratch memory for the value.
     * @param level  the option's level.
     * @param name   the option.
     * @param value  its value.
     * @param what   the option's name, for the message.
     * @throws Unavailable when it cannot be set.
     */
    static void setIntOption(final int fd, final MemorySegment state, final MemorySegment option, final int level,
        final int name, final int value, final String what) throws Unavailable
    {
        option.set(JAVA_INT, 0, value);
        setOption(fd, state, option, level, name, what);
    }

    /**
     * Sets a socket option whose value lies in {@code value}.
     *
     * @throws Unavailable when it cannot be set.
     */
    static void setOption(final int fd, final MemorySegment state, final MemorySegment value, final int level,
        final int name, final String what) throws Unavailable
    {
        final int result;
        try
        {
            result = (int)LIBC.setsockopt().invokeExact(state, fd, level, name, value, (int)value.byteSize());
        }
        catch (final Throwable ex)
        {
            throw new Unavailable("libc setsockopt() failed to run: " + ex);
        }
        if (result != 0)
        {
            throw new Unavailable("setsockopt(" + what + ") failed: errno " + errno(state), errno(state));
        }
    }

    /**
     * Reads an int socket option.
     *
     * @param fd    the socket.
     * @param state call state for errno.
     * @param level the option's level.
     * @param name  the option.
     * @param what  the option's name, for the message.
     * @return its value.
     * @throws Unavailable when it cannot be read.
     */
    static int getIntOption(final int fd, final MemorySegment state, final int level, final int name,
        final String what) throws Unavailable
    {
        try (Arena scratch = Arena.ofConfined())
        {
            final MemorySegment value = scratch.allocate(JAVA_INT);
            final MemorySegment length = scratch.allocate(JAVA_INT);
            length.set(JAVA_INT, 0, Integer.BYTES);
            final int result;
            try
            {
                result = (int)LIBC.getsockopt().invokeExact(state, fd, level, name, value, length);
            }
            catch (final Throwable ex)
            {
                throw new Unavailable("libc getsockopt() failed to run: " + ex);
            }
            if (result != 0)
            {
                throw new Unavailable("getsockopt(" + what + ") failed: errno " + errno(state), errno(state));
            }
            return value.get(JAVA_INT, 0);
        }
    }

    /**
     * Lays out a classic BPF program as {@code struct sock_fprog} takes it (for
     * {@code SO_ATTACH_FILTER} and {@code PACKET_FANOUT_DATA}).
     *
     * @param arena   where it goes; it must outlive the call that passes it.
     * @param program the instructions: each {code, jt, jf, k}.
     * @return the {@code struct sock_fprog}.
     */
    static MemorySegment socketFilterProgram(final Arena arena, final int[][] program)
    {
        final MemorySegment instructions = arena.allocate((long)BPF_INSTRUCTION_LENGTH * program.length, 8);
        for (int i = 0; i < program.length; i++)
        {
            final long at = (long)BPF_INSTRUCTION_LENGTH * i;
            instructions.set(JAVA_SHORT, at, (short)program[i][0]);
            instructions.set(JAVA_BYTE, at + 2, (byte)program[i][1]);
            instructions.set(JAVA_BYTE, at + 3, (byte)program[i][2]);
            instructions.set(JAVA_INT, at + 4, program[i][3]);
        }
        final MemorySegment filter = arena.allocate(FILTER_PROGRAM_LENGTH, 8);
        filter.set(JAVA_SHORT, 0, (short)program.length);
        filter.set(ADDRESS, 8, instructions);
        return filter;
    }

    /**
     * Binds a packet socket to an EtherType on every interface ({@code struct sockaddr_ll} with
     * interface index 0): a packet socket opened with protocol 0 receives nothing until this call.
     *
     * @param fd                   the packet socket.
     * @param protocolNetworkOrder the EtherType, in network order read as a host int.
     * @throws Unavailable when bind() fails (with its errno) or cannot be called.
     */
    static void bindPacketSocket(final int fd, final int protocolNetworkOrder) throws Unavailable
    {
        try (Arena setup = Arena.ofConfined())
        {
            final MemorySegment state = setup.allocate(CALL_STATE);
            final MemorySegment address = setup.allocate(SOCKADDR_LL_LENGTH, 4);
            address.fill((byte)0);
            address.set(JAVA_SHORT, 0, (short)AF_PACKET);
            address.set(JAVA_SHORT, 2, (short)protocolNetworkOrder);
            final int result;
            try
            {
                result = (int)LIBC.bind().invokeExact(state, fd, address, SOCKADDR_LL_LENGTH);
            }
            catch (final Throwable ex)
            {
                throw new Unavailable("libc bind() failed to run: " + ex);
            }
            if (result != 0)
            {
                throw new Unavailable("bind() of the packet socket failed: errno " + errno(state), errno(state));
            }
        }
    }

    /**
     * Lays out a {@code struct sockaddr_in}.
     *
     * @param target  16 bytes.
     * @param address IPv4 address as an int (network order read big-endian).
     * @param port    the port.
     * @return {@code target}.
     */
    static MemorySegment socketAddress(final MemorySegment target, final int address, final int port)
    {
        target.fill((byte)0);
        target.set(ValueLayout.JAVA_SHORT, 0, (short)AF_INET);
        target.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 2, (short)port);
        target.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 4, address);
        return target;
    }

    /**
     * Closes a descriptor, ignoring failure: nothing more can be done with one that will not close.
     *
     * @param fd the descriptor.
     */
    static void closeDescriptor(final int fd)
    {
        try
        {
            final int ignored = (int)LIBC.close().invokeExact(fd);
        }
        catch (final Throwable ex)
        {
            // the descriptor is abandoned either way
        }
    }
}
