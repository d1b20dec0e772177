package io.ringwire.rdma.roce;

import io.ringwire.rdma.roce.LibcSockets.Unavailable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.ringwire.rdma.roce.LibcSockets.*;

/**
 * Receives one roce device's datagrams with their IPv4 and UDP headers (needs CAP_NET_RAW), so that
 * the receiver verifies the ICRC against the IP Identification each packet really carried. A socket
 * filter in the kernel passes only unfragmented UDP datagrams addressed to the device's address and
 * port, so the socket sees nothing else.
 *
 * <p>The socket is a packet socket ({@code AF_PACKET}, {@code SOCK_DGRAM}, IPv4) where the process
 * may open one, else a raw IP socket. The difference is what every other datagram on the host
 * costs: the kernel runs a packet socket's filter before it takes a copy of the datagram, while it
 * copies each UDP datagram to every raw UDP socket and runs the filter on the copy. Every roce
 * device holds one such socket and each messaging publication and subscription opens a device, so
 * with raw sockets each datagram on the host would cost a copy per device on the host. The packet
 * sockets of one process share a {@link PacketFanout} group, which the kernel visits once per
 * packet for all of them, and each reads its datagrams from a mapped {@link PacketRing}. A packet
 * socket sees a datagram where the IP layer receives it: after the interface's ingress hooks,
 * before the IP layer's own checks and filter rules (reverse-path and firewall rules among them:
 * the receiver's own checks of each packet's source stand in their place); the ICRC, checked
 * before anything is applied, covers every byte of the packet but the fields that change in
 * flight. RoCE packets are never fragmented (RingWire sends with DF set, as RoCE NICs do), so
 * fragments are filtered out.
 *
 * <p>Each datagram arrives from its IPv4 header on: {@value #IPV4_HEADER_LENGTH} bytes (a header
 * with options is the receiver's to refuse), the UDP header, then the RoCE packet from its BTH. A
 * copy of every datagram also goes to the device's UDP socket, which owns the port and is not read.
 *
 * <p>Threading: the device's owning thread after construction. {@link #receive} allocates nothing.
 */
final class RawUdpReceiver implements AutoCloseable
{
    /** Bytes of an IPv4 header without options. */
    static final int IPV4_HEADER_LENGTH = 20;
    /** Bytes of the UDP header. */
    static final int UDP_HEADER_LENGTH = 8;
    private static final int SO_ATTACH_FILTER = 26;
    /** ETH_P_IP (0x0800) as bind() takes it for a packet socket: in network order, read as a host int. */
    static final int ETH_P_IP_NETWORK_ORDER = Short.toUnsignedInt(Short.reverseBytes((short)0x0800));

    private static final System.Logger LOGGER = System.getLogger(RawUdpReceiver.class.getName());

    private final int fd;
    private final boolean packetSocket;
    /** In the process's {@link PacketFanout} group. */
    private boolean grouped;
    /** The packet socket's mapped receive ring, or null to receive through {@code recv}. */
    private PacketRing ring;
    private boolean closed;

    private RawUdpReceiver(final int fd, final boolean packetSocket)
    {
        this.fd = fd;
        this.packetSocket = packetSocket;
    }

    /**
     * @return true for a packet socket, false for the raw IP socket opened where none may be.
     */
    boolean isPacketSocket()
    {
        return packetSocket;
    }

    /**
     * @return the id of the packet fanout group the socket is in, or -1 when it is a socket of its
     *         own (a raw IP socket, or a packet socket the kernel kept out of a group).
     */
    int fanoutGroup()
    {
        return grouped ? PacketFanout.groupOf(fd) : -1;
    }

    /**
     * Opens a socket that receives the UDP datagrams sent to {@code localAddress:port} with their
     * headers: a packet socket, in the process's {@link PacketFanout} group where the kernel allows,
     * or a raw IP socket where no packet socket may be opened.
     *
     * @param localAddress the device's IPv4 address, as an int (network order read big-endian).
     * @param port         the device's UDP port.
     * @return the receiver.
     * @throws Unavailable when the process may open neither (errno EPERM: no CAP_NET_RAW), or the
     *                     platform has no such sockets; the device then predicts IP IDs.
     */
    static RawUdpReceiver open(final int localAddress, final int port) throws Unavailable
    {
        return open(localAddress, port, true);
    }

    private static RawUdpReceiver open(final int localAddress, final int port, final boolean withRing)
        throws Unavailable
    {
        int fd;
        boolean packetSocket = true;
        try
        {
            // Protocol 0: it receives nothing until bound below, once its filter and ring are in
            // place (setting a ring empties the queue, so a datagram queued before would be lost).
            fd = openSocket(AF_PACKET, SOCK_DGRAM, 0);
        }
        catch (final Unavailable ex)
        {
            fd = openSocket(SOCK_RAW, IPPROTO_UDP);
            packetSocket = false;
        }
        final RawUdpReceiver receiver = new RawUdpReceiver(fd, packetSocket);
        try
        {
            receiver.attachFilter(localAddress, port);
            if (!packetSocket)
            {
                receiver.drain(); // datagrams for anyone that queued before the filter was in place
                return receiver;
            }
            if (withRing)
            {
                try
                {
                    receiver.ring = PacketRing.map(fd);
                }
                catch (final Unavailable ex)
                {
                    // A ring the kernel took but could not map would keep every datagram from recv():
                    // a socket of its own, without one, is the safe way on.
                    LOGGER.log(System.Logger.Level.INFO, "roce on port " + port + " receives through recv(), a " +
                        "system call per poll: no packet ring (" + ex.getMessage() + ")");
                    receiver.close();
                    return open(localAddress, port, false);
                }
            }
            bindPacketSocket(fd, ETH_P_IP_NETWORK_ORDER); // a group takes only a socket that receives
            final int joined = PacketFanout.join(fd, localAddress, port, receiver.ring);
            if (joined == PacketFanout.CLOSED)
            {
                receiver.closed = true;
                return open(localAddress, port, withRing); // alone this time: the group takes no more
            }
            receiver.grouped = joined == PacketFanout.JOINED;
            return receiver;
        }
        catch (final Unavailable | RuntimeException | Error ex)
        {
            receiver.close();
            throw ex;
        }
    }

    /**
     * The classic BPF program the kernel runs on each IPv4 packet (a packet socket) or UDP datagram
     * (a raw socket) before it queues it here: accept an unfragmented UDP datagram whose destination
     * address is the device's and whose UDP destination port is its port. Loads are relative to the
     * IPv4 header and in network order.
     */
    private void attachFilter(final int localAddress, final int port) throws Unavailable
    {
        final int[][] program = {
            { 0x20, 0, 0, 16 },            // ld  [16]              destination address
            { 0x15, 0, 8, localAddress },  // jeq #address, next, drop
            { 0x30, 0, 0, 9 },             // ldb [9]               protocol
            { 0x15, 0, 6, IPPROTO_UDP },   // jeq #UDP, next, drop
            { 0x28, 0, 0, 6 },             // ldh [6]               flags and fragment offset
            { 0x45, 4, 0, 0x3FFF },        // jset #MF|offset, drop, next
            { 0xB1, 0, 0, 0 },             // ldxb 4*([0]&0xf)     header length
            { 0x48, 0, 0, 2 },             // ldh [x + 2]           UDP destination port
            { 0x15, 0, 1, port },          // jeq #port, next, drop
            { 0x06, 0, 0, 0xFFFF },        // ret #65535            accept the whole datagram
            { 0x06, 0, 0, 0 },             // ret #0                drop
        };
        try (Arena setup = Arena.ofConfined())
        {
            setOption(fd, setup.allocate(CALL_STATE), socketFilterProgram(setup, program), SOL_SOCKET,
                SO_ATTACH_FILTER, "SO_ATTACH_FILTER");
        }
    }

    /**
     * @return true when datagrams arrive through a mapped ring, not {@code recv}.
     */
    boolean hasRing()
    {
        return null != ring;
    }

    private void drain()
    {
        try (Arena setup = Arena.ofConfined())
        {
            final MemorySegment discard = setup.allocate(2048);
            while (receive(discard, discard.byteSize()) >= 0)
            {
                // dropped: it arrived before the filter
            }
        }
    }

    /**
     * Receives one datagram without blocking. Allocation-free.
     *
     * @param target   where the datagram goes, from its IPv4 header on.
     * @param capacity bytes available there.
     * @return bytes received, or -1 when nothing is waiting (or the receive failed).
     */
    long receive(final MemorySegment target, final long capacity)
    {
        if (null != ring)
        {
            return ring.receive(target, capacity);
        }
        try
        {
            return (long)LIBC.recv().invokeExact(fd, target, capacity, MSG_DONTWAIT);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("libc recv() failed to run", ex);
        }
    }

    @Override
    public void close()
    {
        close(PacketFanout.LeaveSteps.NONE);
    }

    /** @return whether {@link #close} has run (tests). */
    boolean isClosed()
    {
        return closed;
    }

    /**
     * Closes the socket, leaving its fanout group if it is in one.
     *
     * @param steps told of each step of the leave (tests).
     */
    void close(final PacketFanout.LeaveSteps steps)
    {
        if (!closed)
        {
            closed = true;
            if (null != ring && !ring.unmap())
            {
                // The mapping holds the socket open: closing the descriptor would not take it out of
                // its group, so it stays, routed to by nothing.
                LOGGER.log(System.Logger.Level.WARNING, "roce packet ring not unmapped; its socket is left open");
                if (grouped)
                {
                    PacketFanout.abandon(fd);
                }
                return;
            }
            if (grouped)
            {
                PacketFanout.leaveAndClose(fd, steps);
            }
            else
            {
                closeDescriptor(fd);
            }
        }
    }
}
