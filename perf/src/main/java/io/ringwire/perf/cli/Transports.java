package io.ringwire.perf.cli;

import java.util.List;

/**
 * The names {@code ringwire perf}'s commands give transports and paths, on their command lines, in
 * their tables and in their JSON: the RDMA providers, the raw baselines a user would pick instead of
 * them, and the paths an RDMA provider is measured through. One place, so that every command spells
 * them alike and none leans on another command's options for them.
 */
public final class Transports
{
    /** The RDMA provider over shared memory. */
    public static final String SHM = "shm";
    /** The RDMA provider over TCP. */
    public static final String SOCKET = "socket";
    /** The RDMA provider speaking RoCEv2 over UDP (bound to 127.0.0.1 here). */
    public static final String ROCE = "roce";
    /**
     * The RDMA provider over a real device through libibverbs (a ConnectX NIC, or Soft-RoCE as in
     * the VM lab); in rtt's default list only where a device is present.
     */
    public static final String IBVERBS = "ibverbs";
    /** The baseline for {@code socket}: a busy-polled non-blocking NIO TCP ping-pong, no RDMA layer. */
    public static final String NIO_TCP = "nio-tcp";
    /** The baseline for {@code roce}: a busy-polled non-blocking NIO UDP ping-pong, one datagram per message. */
    public static final String NIO_UDP = "nio-udp";
    /**
     * What the roce provider's sockets alone cost: the {@code nio-udp} ping-pong over unconnected
     * sockets used as roce uses them (rtt's {@code NioUdpLink}).
     */
    public static final String NIO_UDP_UNCONNECTED = "nio-udp-unconnected";
    /**
     * The floor under {@code shm}: a bare cache-line ping-pong through shared memory (a mapped file
     * across processes), no queue pair, ring or completion in between (rtt's {@code BareLines}).
     */
    public static final String BARE = "bare";
    /**
     * The floor under {@code shm}'s channel: {@code bare} with the message placed first and a
     * notification in a separate line after it, as a WRITE WITH IMMEDIATE places data and then a
     * completion.
     */
    public static final String BARE_NOTIFIED = "bare-notified";
    /** The peer an application would pick instead of {@code shm}: Aeron's ping-pong over {@code aeron:ipc}. */
    public static final String AERON_IPC = "aeron-ipc";
    /**
     * The like-for-like peer of {@code shm} messaging: {@code aeron-ipc} carrying the same SBE
     * {@code LatencyProbe}, claimed, encoded, validated and decoded as messaging's probe path does.
     */
    public static final String AERON_IPC_SBE = "aeron-ipc-sbe";
    /**
     * The peer an application would pick instead of {@code roce}: Aeron's ping-pong over
     * {@code aeron:udp} on 127.0.0.1 through an embedded media driver.
     */
    public static final String AERON_UDP = "aeron-udp";
    /** Every transport, in the order rtt runs its default list. */
    public static final List<String> ALL = List.of(SHM, SOCKET, ROCE, IBVERBS, NIO_TCP, NIO_UDP,
        NIO_UDP_UNCONNECTED, BARE, BARE_NOTIFIED, AERON_IPC, AERON_IPC_SBE, AERON_UDP);
    /** The RDMA providers, the transports messaging runs over. */
    public static final List<String> RDMA_PROVIDERS = List.of(SHM, SOCKET, ROCE, IBVERBS);

    /** Through Publication and Subscription, with SBE {@code LatencyProbe} messages. */
    public static final String API_MESSAGING = "messaging";
    /** The bare channel: WRITE WITH IMMEDIATE between two queue pairs. */
    public static final String API_CHANNEL = "channel";
    /** The bare channel, then messaging, for each RDMA provider. */
    public static final String API_BOTH = "both";
    /** What {@code --api} accepts where every path is measured. */
    public static final List<String> ALLOWED_APIS = List.of(API_MESSAGING, API_CHANNEL, API_BOTH);
    /** The api of a raw baseline's row: its own sockets or memory only, no RingWire layer. */
    public static final String API_RAW = "raw";

    private Transports()
    {
    }

    /**
     * @param transport a transport name.
     * @return true for the raw baselines (NIO, bare and Aeron), which need no RDMA provider.
     */
    public static boolean isRawBaseline(final String transport)
    {
        return NIO_TCP.equals(transport) || NIO_UDP.equals(transport) || NIO_UDP_UNCONNECTED.equals(transport) ||
            isBare(transport) || isAeron(transport);
    }

    /**
     * @param transport a transport name.
     * @return true for Aeron's ping-pongs, {@code aeron-ipc}, {@code aeron-ipc-sbe} and {@code aeron-udp}.
     */
    public static boolean isAeron(final String transport)
    {
        return AERON_IPC.equals(transport) || AERON_IPC_SBE.equals(transport) || AERON_UDP.equals(transport);
    }

    /**
     * @param transport a transport name.
     * @return true for the shared-memory floors, {@code bare} and {@code bare-notified}.
     */
    public static boolean isBare(final String transport)
    {
        return BARE.equals(transport) || BARE_NOTIFIED.equals(transport);
    }
}
