package io.ringwire.rdma.roce;

import io.ringwire.rdma.roce.LibcSockets.Unavailable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

import static io.ringwire.rdma.roce.LibcSockets.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A connected, non-blocking IPv4 UDP socket with Don't-Fragment, driven through libc with the
 * foreign function API, that knows the IPv4 Identification of the next datagram it sends.
 *
 * <p>Why: the RoCEv2 ICRC covers the IP ID. An unconnected socket with Don't-Fragment sends ID 0,
 * so its ICRC is computable, but each send then looks up a route, a large share of a small
 * datagram's send that a connected socket pays once, when it connects. A connected socket numbers its
 * datagrams from a random start the kernel keeps to itself, one per datagram sent (Linux
 * {@code ip_select_ident_segs}: the socket's {@code inet_id}). {@link #learnIpIdentification} reads
 * that counter once: it sends an empty probe datagram to a sink socket with a software transmit
 * timestamp requested without {@code SOF_TIMESTAMPING_OPT_TSONLY}, and the kernel loops the packet,
 * headers and all, back on the socket's error queue; the probe's ID plus one is the next one.
 * After that the sender counts: a send that returns a byte count used one ID. A failed send may or
 * may not have used one ({@code EAGAIN} refuses before the packet is built, a netfilter drop after
 * the ID was taken returns {@code EPERM}), and reading errno per send costs an allocation, so the
 * caller learns again after any failure.
 *
 * <p>The JDK's {@code DatagramChannel} cannot reach a socket's error queue, hence libc. Linux only;
 * {@link #open} and {@link #learnIpIdentification} throw {@link Unavailable} with the reason
 * elsewhere, and under shims (libvma, rsocket) that do not loop transmit timestamps back, and the
 * provider keeps its unconnected sockets.
 *
 * <p>Threading: confined to the owning thread after construction (its scratch memory is shared
 * arena memory so that the constructing and owning threads may differ). {@link #send} allocates
 * nothing.
 */
final class ConnectedUdpSocket implements AutoCloseable
{
    private static final int SO_SNDBUF = 7;
    private static final int SO_TIMESTAMPING = 37;
    private static final int SOF_TIMESTAMPING_TX_SOFTWARE = 1 << 1;
    private static final int SOF_TIMESTAMPING_TX_SCHED = 1 << 8;
    private static final int SOF_TIMESTAMPING_SOFTWARE = 1 << 4;
    private static final int IP_MTU_DISCOVER = 10;
    private static final int IP_PMTUDISC_DO = 2;
    private static final int MSG_ERRQUEUE = 0x2000;

    private static final int SOCKADDR_IN_LENGTH = 16;
    /** struct msghdr on LP64 Linux: name, namelen (padded), iov, iovlen, control, controllen, flags. */
    private static final long MSGHDR_LENGTH = 56;
    private static final long MSGHDR_IOV = 16;
    private static final long MSGHDR_IOVLEN = 24;
    private static final long MSGHDR_CONTROL = 32;
    private static final long MSGHDR_CONTROLLEN = 40;
    private static final int ERROR_QUEUE_BYTES = 512;
    private static final int CONTROL_BYTES = 256;
    private static final int IPV4_AND_UDP_HEADERS = 28;
    /** {@link #learnIpIdentification}'s answer when the probe could not be sent. */
    static final int PROBE_NOT_SENT = -1;


    private final int fd;
    private int localPort;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment callState;
    private final MemorySegment scratch;
    private final MemorySegment message;
    private final MemorySegment ioVector;
    private final MemorySegment errorQueueData;
    private final MemorySegment control;
    private boolean closed;

    private ConnectedUdpSocket(final int fd)
    {
        this.fd = fd;
        // Passed to every send: memory of a shared arena would be acquired and released by each call
        // (two atomic updates), an automatic arena's is not; the GC frees it with this object.
        callState = Arena.ofAuto().allocate(LibcSockets.CALL_STATE);
        scratch = arena.allocate(SOCKADDR_IN_LENGTH + 8, 8);
        message = arena.allocate(MSGHDR_LENGTH, 8);
        ioVector = arena.allocate(16, 8);
        errorQueueData = arena.allocate(ERROR_QUEUE_BYTES, 8);
        control = arena.allocate(CONTROL_BYTES, 8);
    }

    /**
     * Opens the socket: bound to {@code localAddress:sourcePort} (any port if that one is taken),
     * connected to {@code peerAddress:peerPort}, Don't-Fragment, a 4 MiB send buffer.
     *
     * @param localAddress IPv4 address as an int (network order read big-endian).
     * @param sourcePort   the port to send from; 0 for any.
     * @param peerAddress  IPv4 address of the peer.
     * @param peerPort     the peer's UDP port.
     * @return the socket.
     * @throws Unavailable why a connected socket cannot be used here (the caller falls back).
     */
    static ConnectedUdpSocket open(final int localAddress, final int sourcePort, final int peerAddress, final int peerPort)
        throws Unavailable
    {
        final int fd = LibcSockets.openSocket(SOCK_DGRAM, 0);
        final ConnectedUdpSocket socket = new ConnectedUdpSocket(fd);
        try
        {
            socket.setOption(IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO, "IP_MTU_DISCOVER");
            socket.setOption(SOL_SOCKET, SO_SNDBUF, 4 * 1024 * 1024, "SO_SNDBUF");
            if (!socket.bindTo(localAddress, sourcePort) && !socket.bindTo(localAddress, 0))
            {
                throw new Unavailable("bind() failed: errno " + errno(socket.callState));
            }
            socket.connectTo(peerAddress, peerPort);
            socket.localPort = socket.boundPort();
            return socket;
        }
        catch (final Unavailable | RuntimeException ex)
        {
            socket.close();
            throw ex;
        }
    }

    /**
     * @return the UDP port the socket sends from.
     */
    int localPort()
    {
        return localPort;
    }

    /**
     * Sends one datagram to the connected peer without blocking. Allocation-free.
     *
     * @param datagram native memory holding the datagram from index 0.
     * @param length   bytes to send.
     * @return the bytes sent (one IP ID used), or -1 (the ID may or may not have been used).
     */
    long send(final MemorySegment datagram, final int length)
    {
        try
        {
            return (long)LibcSockets.LIBC.send().invokeExact(fd, datagram, (long)length, MSG_DONTWAIT);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("libc send() failed to run", ex);
        }
    }

    /**
     * Learns the IPv4 Identification the next {@link #send} will carry: sends an empty datagram to
     * {@code sinkAddress:sinkPort} (a bound socket that drops it, so no ICMP comes back) with a
     * transmit timestamp that loops the packet back on the error queue, and reads its header.
     *
     * @param sinkAddress IPv4 address of a bound UDP socket on this host.
     * @param sinkPort    its port.
     * @param timeoutNs   how long to wait for the looped packet.
     * @return the next ID (0..65535), or {@link #PROBE_NOT_SENT} when the probe could not be sent
     *         (a full send buffer): allocation-free, so a back-pressured sender may keep trying.
     * @throws Unavailable when the kernel does not loop the packet back (a shim, a sysctl, no
     *                     timestamping): the caller falls back to unconnected sends.
     */
    int learnIpIdentification(final int sinkAddress, final int sinkPort, final long timeoutNs) throws Unavailable
    {
        drainErrorQueue();
        setOption(SOL_SOCKET, SO_TIMESTAMPING, SOF_TIMESTAMPING_TX_SCHED | SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE,
            "SO_TIMESTAMPING");
        try
        {
            // A first failure may only report (and clear) an ICMP error from the peer: try once more.
            if (sendProbe(sinkAddress, sinkPort) < 0 && sendProbe(sinkAddress, sinkPort) < 0)
            {
                return PROBE_NOT_SENT;
            }
            final long deadline = System.nanoTime() + timeoutNs;
            while (true)
            {
                final long length = readErrorQueue();
                if (length >= IPV4_AND_UDP_HEADERS)
                {
                    // The loop-back holds the packet from its link-layer header on; the probe carries no
                    // payload, so the IPv4 header starts 28 bytes before the end.
                    final long ip = length - IPV4_AND_UDP_HEADERS;
                    final int versionAndLength = errorQueueData.get(ValueLayout.JAVA_BYTE, ip) & 0xFF;
                    final int protocol = errorQueueData.get(ValueLayout.JAVA_BYTE, ip + 9) & 0xFF;
                    if (versionAndLength != 0x45 || protocol != 17)
                    {
                        throw new Unavailable("the looped-back probe is not an IPv4/UDP packet without options");
                    }
                    final int probeId = errorQueueData.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), ip + 4)
                        & 0xFFFF;
                    drainErrorQueue();
                    return (probeId + 1) & 0xFFFF;
                }
                if (length >= 0)
                {
                    throw new Unavailable("the kernel looped back the probe's timestamp without the packet " +
                        "(net.core.tstamp_allow_data=0?)");
                }
                if (System.nanoTime() - deadline > 0)
                {
                    throw new Unavailable("no transmit timestamp came back within " +
                        TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms");
                }
                Thread.onSpinWait();
            }
        }
        finally
        {
            setOption(SOL_SOCKET, SO_TIMESTAMPING, 0, "SO_TIMESTAMPING");
        }
    }

    private long sendProbe(final int sinkAddress, final int sinkPort) throws Unavailable
    {
        try
        {
            return (long)LibcSockets.LIBC.sendto().invokeExact(fd, errorQueueData, 0L, MSG_DONTWAIT,
                socketAddress(sinkAddress, sinkPort), SOCKADDR_IN_LENGTH);
        }
        catch (final Throwable ex)
        {
            throw new Unavailable("libc sendto() failed to run: " + ex);
        }
    }

    /** @return bytes of the next error-queue message, or -1 when there is none. */
    private long readErrorQueue()
    {
        message.fill((byte)0);
        ioVector.set(ADDRESS, 0, errorQueueData);
        ioVector.set(JAVA_LONG, 8, ERROR_QUEUE_BYTES);
        message.set(ADDRESS, MSGHDR_IOV, ioVector);
        message.set(JAVA_LONG, MSGHDR_IOVLEN, 1L);
        message.set(ADDRESS, MSGHDR_CONTROL, control);
        message.set(JAVA_LONG, MSGHDR_CONTROLLEN, CONTROL_BYTES);
        try
        {
            final long length = (long)LibcSockets.LIBC.recvmsg().invokeExact(fd, message, MSG_ERRQUEUE | MSG_DONTWAIT);
            return length >= 0 ? length : -1;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("libc recvmsg() failed to run", ex);
        }
    }

    private void drainErrorQueue()
    {
        for (int i = 0; i < 64 && readErrorQueue() >= 0; i++)
        {
            // earlier loop-backs, if any
        }
    }

    private void setOption(final int level, final int name, final int value, final String what) throws Unavailable
    {
        LibcSockets.setIntOption(fd, callState, scratch.asSlice(SOCKADDR_IN_LENGTH, 4), level, name, value, what);
    }

    private boolean bindTo(final int address, final int port) throws Unavailable
    {
        try
        {
            return (int)LibcSockets.LIBC.bind().invokeExact(callState, fd, socketAddress(address, port), SOCKADDR_IN_LENGTH) == 0;
        }
        catch (final Throwable ex)
        {
            throw new Unavailable("libc bind() failed to run: " + ex);
        }
    }

    private void connectTo(final int address, final int port) throws Unavailable
    {
        final int result;
        try
        {
            result = (int)LibcSockets.LIBC.connect().invokeExact(callState, fd, socketAddress(address, port), SOCKADDR_IN_LENGTH);
        }
        catch (final Throwable ex)
        {
            throw new Unavailable("libc connect() failed to run: " + ex);
        }
        if (result != 0)
        {
            throw new Unavailable("connect() failed: errno " + errno(callState));
        }
    }

    private int boundPort() throws Unavailable
    {
        final MemorySegment address = socketAddress(0, 0);
        final MemorySegment length = scratch.asSlice(SOCKADDR_IN_LENGTH, 4);
        length.set(JAVA_INT, 0, SOCKADDR_IN_LENGTH);
        final int result;
        try
        {
            result = (int)LibcSockets.LIBC.getsockname().invokeExact(callState, fd, address, length);
        }
        catch (final Throwable ex)
        {
            throw new Unavailable("libc getsockname() failed to run: " + ex);
        }
        if (result != 0)
        {
            throw new Unavailable("getsockname() failed: errno " + errno(callState));
        }
        return address.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 2) & 0xFFFF;
    }

    private MemorySegment socketAddress(final int address, final int port)
    {
        return LibcSockets.socketAddress(scratch.asSlice(0, SOCKADDR_IN_LENGTH), address, port);
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        LibcSockets.closeDescriptor(fd);
        arena.close();
    }
}
