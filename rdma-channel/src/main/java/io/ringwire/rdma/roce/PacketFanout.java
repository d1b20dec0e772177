package io.ringwire.rdma.roce;

import io.ringwire.rdma.roce.LibcSockets.Unavailable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static io.ringwire.rdma.roce.LibcSockets.*;

/**
 * Puts this process's roce packet sockets into one packet fanout group, so that the kernel visits
 * one socket per process for each IPv4 packet on the host instead of every roce device's socket.
 *
 * <p>Why: each roce device holds a packet socket ({@link RawUdpReceiver}), and every messaging
 * publication and subscription opens a device. The kernel offers each IPv4 packet to each packet
 * socket of its protocol: a reference taken, the socket's filter run, the reference dropped, for
 * every socket on the host, before one of them takes the packet. A process with six devices pays
 * that six times for every datagram, its own and everyone else's. A fanout group
 * ({@code PACKET_FANOUT}) stands in the kernel's list once for all its members: per packet the
 * group runs one classic BPF program ({@code PACKET_FANOUT_CBPF}), which returns the index of the
 * member to hand it to, and only that member's own filter runs. The program matches each member's
 * address and UDP destination port and returns its index; a packet that matches none goes to
 * member 0, whose filter drops it. Each member keeps its exact filter, so a packet the program
 * sends astray is dropped, never taken by the wrong device.
 *
 * <p>The kernel keeps the members in an array in the order they joined; a member that leaves is
 * replaced in its slot by the last member, and the program's result is taken modulo the number
 * of members. A program that named the last member's old index while the leaving member closes
 * would send that member's packets astray until the next program is in place. So before a member
 * at index {@code i} of {@code n} leaves, the program gives the last member {@code n - 1 + n * i},
 * which is {@code n - 1} modulo {@code n} and {@code i} modulo {@code n - 1}: right before the
 * close and after it, with no window in between. Joining appends, which moves no one.
 *
 * <p>Where the kernel refuses (no fanout, a group at its 256 members, a program it will not
 * take), the socket stays a socket of its own, as it was before fanout, and works the same, only
 * dearer for the host. The group is one per process: the kernel keys groups by id within a network
 * namespace, and one JVM lives in one.
 *
 * <p>Threading: any thread; joins and leaves are serialized on the class (device open and close,
 * never a data path).
 */
final class PacketFanout
{
    static final int SOL_PACKET = 263;
    static final int PACKET_FANOUT = 18;
    static final int PACKET_FANOUT_DATA = 22;
    static final int PACKET_FANOUT_CBPF = 6;
    static final int PACKET_FANOUT_FLAG_UNIQUEID = 0x2000;
    /** The kernel's member limit for a group joined with an int option (the kernel's own is higher). */
    static final int MAX_MEMBERS = 256;
    /** {@link #join}: the socket joined the group. */
    static final int JOINED = 1;
    /** {@link #join}: the socket stays a socket of its own, as it was. */
    static final int ALONE = 0;
    /** {@link #join}: the socket joined but could not be routed to, so it was closed: open another. */
    static final int CLOSED = -1;

    private static final System.Logger LOGGER = System.getLogger(PacketFanout.class.getName());
    /** Classic BPF instructions a member takes in the program. */
    private static final int INSTRUCTIONS_PER_MEMBER = 5;
    /** The port of a member routed to by nothing: a 16-bit load never equals it. */
    private static final int NO_PORT = 0x1_0000;

    // Guarded by the class; mirror the kernel's array of members.
    private static int[] fds = new int[8];
    private static int[] addresses = new int[8];
    private static int[] ports = new int[8];
    private static int members;
    /** The group's id once it has a member; -1 before. */
    private static int groupId = -1;
    /** Why the kernel refused a group, or null: no further socket tries. */
    private static String refused;

    private PacketFanout()
    {
    }

    /**
     * Joins the group (making it with the first member) and routes the member's datagrams to it.
     * Where the kernel refuses the join the socket stays out of the group, as it was; where it takes
     * the member but not the program that routes to it, the socket is closed (a socket leaves a
     * group only by closing) and no further socket tries.
     *
     * @param fd      a packet socket of {@code ETH_P_IP}, its filter attached.
     * @param address the device's IPv4 address (network order read big-endian).
     * @param port    the device's UDP port.
     * @param ring    the socket's mapped ring, unmapped before a close here, or null.
     * @return {@link #JOINED}, {@link #ALONE} or {@link #CLOSED}.
     */
    static synchronized int join(final int fd, final int address, final int port, final PacketRing ring)
    {
        if (null != refused || members >= MAX_MEMBERS)
        {
            return ALONE;
        }
        try (Arena setup = Arena.ofConfined())
        {
            final MemorySegment state = setup.allocate(CALL_STATE);
            final MemorySegment option = setup.allocate(Integer.BYTES);
            if (members == 0)
            {
                setIntOption(fd, state, option, SOL_PACKET, PACKET_FANOUT,
                    (PACKET_FANOUT_CBPF | PACKET_FANOUT_FLAG_UNIQUEID) << 16, "PACKET_FANOUT");
                groupId = getIntOption(fd, state, SOL_PACKET, PACKET_FANOUT, "PACKET_FANOUT") & 0xFFFF;
            }
            else
            {
                setIntOption(fd, state, option, SOL_PACKET, PACKET_FANOUT, groupId | PACKET_FANOUT_CBPF << 16,
                    "PACKET_FANOUT");
            }
        }
        catch (final Unavailable ex)
        {
            if (members == 0)
            {
                refused = ex.getMessage();
                LOGGER.log(System.Logger.Level.INFO, "roce packet sockets stay one per device (" + refused +
                    "): each costs every IPv4 packet on the host a filter run");
            }
            return ALONE;
        }
        append(fd, address, port);
        final String failure = install(fd, -1, 0);
        if (null != failure)
        {
            // Its datagrams would go to member 0 and be dropped there. It is the last member, so its
            // close moves no one, and the program in place still routes every other member.
            refused = failure;
            LOGGER.log(System.Logger.Level.WARNING, "roce packet fanout could not route a new member (" + failure +
                "): its socket is reopened alone, and so are later ones");
            if (null != ring && !ring.unmap())
            {
                ports[members - 1] = NO_PORT; // still held by its mapping: it stays, routed to by nothing
                return CLOSED;
            }
            members--;
            closeDescriptor(fd);
            if (members == 0)
            {
                groupId = -1;
            }
            return CLOSED;
        }
        return JOINED;
    }

    /** Called at the steps of a leave, for tests that send through the group in between. */
    interface LeaveSteps
    {
        /** Does nothing. */
        LeaveSteps NONE = (step) -> { };

        /**
         * @param step {@link #BEFORE_CLOSE} (the transitional program in place, the member still open) or
         *             {@link #AFTER_CLOSE} (the member closed, the transitional program still in place).
         */
        void reached(String step);
    }

    /** {@link LeaveSteps}: the transitional program is in place and the leaving member still open. */
    static final String BEFORE_CLOSE = "before close";
    /** {@link LeaveSteps}: the leaving member is closed and the transitional program still in place. */
    static final String AFTER_CLOSE = "after close";

    /**
     * Closes a member's socket, leaving the group with no packet of another member sent astray.
     *
     * @param fd    a socket {@link #join} took.
     * @param steps told of each step ({@link LeaveSteps#NONE} outside tests).
     */
    static synchronized void leaveAndClose(final int fd, final LeaveSteps steps)
    {
        final int index = indexOf(fd);
        if (index < 0)
        {
            closeDescriptor(fd);
            return;
        }
        final int last = members - 1;
        if (index != last)
        {
            // The last member moves into the leaving one's slot when it closes.
            final String failure = install(fds[last], index, members);
            if (null != failure)
            {
                LOGGER.log(System.Logger.Level.WARNING, "roce packet fanout: " + failure + "; the member that " +
                    "moves may lose datagrams until the next program is in place");
            }
        }
        Throwable stepFailure = reach(steps, BEFORE_CLOSE, null);
        closeDescriptor(fd);
        fds[index] = fds[last];
        addresses[index] = addresses[last];
        ports[index] = ports[last];
        members = last;
        stepFailure = reach(steps, AFTER_CLOSE, stepFailure);
        if (members > 0)
        {
            // The transitional program stays right until the next join, whose member it would name.
            final String failure = install(fds[0], -1, 0);
            if (null != failure)
            {
                LOGGER.log(System.Logger.Level.WARNING, "roce packet fanout: " + failure + "; the next member to " +
                    "join may take the moved member's datagrams until its own program is in place");
            }
        }
        else
        {
            groupId = -1;
        }
        if (stepFailure instanceof RuntimeException runtime)
        {
            throw runtime;
        }
        if (stepFailure instanceof Error error)
        {
            throw error;
        }
    }

    /**
     * A member whose socket cannot close (its ring would not unmap) stays in the group, routed to by
     * nothing.
     *
     * @param fd a socket {@link #join} took.
     */
    static synchronized void abandon(final int fd)
    {
        final int index = indexOf(fd);
        if (index >= 0)
        {
            ports[index] = NO_PORT;
            install(fds[0], -1, 0);
        }
    }

    /** Tells the steps, and keeps the first failure for after the leave is complete. */
    private static Throwable reach(final LeaveSteps steps, final String step, final Throwable earlier)
    {
        try
        {
            steps.reached(step);
            return earlier;
        }
        catch (final RuntimeException | Error ex)
        {
            return null == earlier ? ex : earlier;
        }
    }

    /**
     * @param fd a socket.
     * @return the id of the fanout group the kernel has it in, or -1 when none (for tests and
     *         diagnostics).
     */
    static int groupOf(final int fd)
    {
        try (Arena setup = Arena.ofConfined())
        {
            final int value = getIntOption(fd, setup.allocate(CALL_STATE), SOL_PACKET, PACKET_FANOUT, "PACKET_FANOUT");
            return value == 0 ? -1 : value & 0xFFFF;
        }
        catch (final Unavailable ex)
        {
            return -1;
        }
    }

    /**
     * @param members the group's size before a member leaves.
     * @param leaving the leaving member's index.
     * @return what the program returns for the last member while the member at {@code leaving}
     *         closes: the last index modulo {@code members}, {@code leaving} modulo one less.
     */
    static int transitionalIndex(final int members, final int leaving)
    {
        return members - 1 + members * leaving;
    }

    private static void append(final int fd, final int address, final int port)
    {
        if (members == fds.length)
        {
            fds = Arrays.copyOf(fds, members * 2);
            addresses = Arrays.copyOf(addresses, members * 2);
            ports = Arrays.copyOf(ports, members * 2);
        }
        fds[members] = fd;
        addresses[members] = address;
        ports[members] = port;
        members++;
    }

    private static int indexOf(final int fd)
    {
        for (int i = 0; i < members; i++)
        {
            if (fds[i] == fd)
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * Sets the group's program through one member: each member's address and port to its index,
     * but for a member about to leave (none for -1) and the last member, which gets its
     * {@link #transitionalIndex}.
     *
     * @param throughFd a member's socket.
     * @param leaving   the index of the member about to close, or -1.
     * @param size      the number of members before it closes.
     * @return null when set, else why not.
     */
    private static String install(final int throughFd, final int leaving, final int size)
    {
        final int[][] program = new int[1 + INSTRUCTIONS_PER_MEMBER * members + 1][];
        int at = 0;
        program[at++] = new int[] { 0xB1, 0, 0, 0 };                  // ldxb 4*([0]&0xf)  header length
        for (int i = 0; i < members; i++)
        {
            final int index = leaving < 0 ? i : i == leaving ? 0 : i == members - 1 ?
                transitionalIndex(size, leaving) : i;
            program[at++] = new int[] { 0x48, 0, 0, 2 };              // ldh [x + 2]       UDP destination port
            program[at++] = new int[] { 0x15, 0, 3, ports[i] };       // jeq #port, next, next member
            program[at++] = new int[] { 0x20, 0, 0, 16 };             // ld  [16]          destination address
            program[at++] = new int[] { 0x15, 0, 1, addresses[i] };   // jeq #address, next, next member
            program[at++] = new int[] { 0x06, 0, 0, index };          // ret #index
        }
        program[at] = new int[] { 0x06, 0, 0, 0 };                    // ret #0            member 0 drops it
        try (Arena setup = Arena.ofConfined())
        {
            setOption(throughFd, setup.allocate(CALL_STATE), socketFilterProgram(setup, program), SOL_PACKET,
                PACKET_FANOUT_DATA, "PACKET_FANOUT_DATA");
            return null;
        }
        catch (final Unavailable ex)
        {
            return ex.getMessage();
        }
    }
}
