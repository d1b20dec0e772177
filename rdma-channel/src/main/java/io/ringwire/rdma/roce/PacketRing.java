package io.ringwire.rdma.roce;

import io.ringwire.rdma.roce.LibcSockets.Unavailable;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.ringwire.rdma.roce.LibcSockets.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A packet socket's receive ring ({@code PACKET_RX_RING}, {@code TPACKET_V2}) mapped into the
 * process: the kernel copies each datagram the socket's filter accepts into the next free frame and
 * marks it the user's; the receiver reads frames in order from memory and hands each back.
 *
 * <p>Why: read through {@code recv}, every datagram costs a system call, and so does every poll
 * that finds nothing, which is most polls of a busy-polling receiver: a datagram that arrives during
 * one is seen only when the next returns. With the ring a poll is one load of the next frame's
 * status word, and the kernel copies the packet into the ring instead of cloning the buffer and
 * queueing the clone. The frames are sized for the largest RoCE packet roce sends (a 4096-byte
 * MTU with its headers); a longer datagram arrives cut short, and the receiver drops it as
 * truncated. When every frame is taken the kernel drops the datagram, as a full receive queue
 * would, and the reliable connection resends it.
 *
 * <p>Threading: the device's owning thread after construction. {@link #receive} allocates nothing.
 */
final class PacketRing implements AutoCloseable
{
    static final int PACKET_RX_RING = 5;
    static final int PACKET_VERSION = 10;
    static final int TPACKET_V2 = 1;
    /** Frame bytes: the frame header and link address (80 bytes before the IPv4 header) and 4272 of packet. */
    static final int FRAME_SIZE = 4352;
    static final int BLOCK_SIZE = 65536;
    /** 240 frames: more datagrams than a default receive buffer held, and a 128-PSN window twice over. */
    static final int BLOCKS = 16;
    static final int FRAMES_PER_BLOCK = BLOCK_SIZE / FRAME_SIZE;
    static final int FRAMES = FRAMES_PER_BLOCK * BLOCKS;
    private static final long LENGTH = (long)BLOCK_SIZE * BLOCKS;
    private static final int PROT_READ_WRITE = 3;
    private static final int MAP_SHARED = 1;
    /** struct tpacket_req: block size, block count, frame size, frame count. */
    private static final int REQUEST_LENGTH = 16;

    // struct tpacket2_hdr
    private static final int STATUS_OFFSET = 0;
    private static final int LENGTH_OFFSET = 4;
    private static final int SNAPSHOT_LENGTH_OFFSET = 8;
    private static final int NETWORK_OFFSET = 14;
    private static final int TP_STATUS_KERNEL = 0;
    private static final int TP_STATUS_USER = 1;

    private final MemorySegment mapping;
    private final UnsafeBuffer frames;
    private int next;
    private boolean closed;

    private PacketRing(final MemorySegment mapping)
    {
        this.mapping = mapping;
        this.frames = new UnsafeBuffer(mapping.address(), (int)LENGTH);
    }

    /**
     * Gives a packet socket a receive ring and maps it. Call before the socket joins a fanout group:
     * setting a ring takes the socket off the kernel's list and puts it back, which would move it to
     * the end of its group.
     *
     * @param fd a packet socket with no ring yet.
     * @return the ring.
     * @throws Unavailable when the kernel refuses the ring or the mapping (the socket then keeps
     *                     receiving through {@code recv}).
     */
    @SuppressWarnings("restricted")
    static PacketRing map(final int fd) throws Unavailable
    {
        try (Arena setup = Arena.ofConfined())
        {
            final MemorySegment state = setup.allocate(CALL_STATE);
            setIntOption(fd, state, setup.allocate(JAVA_INT), PacketFanout.SOL_PACKET, PACKET_VERSION, TPACKET_V2,
                "PACKET_VERSION");
            final MemorySegment request = setup.allocate(REQUEST_LENGTH, 4);
            request.set(JAVA_INT, 0, BLOCK_SIZE);
            request.set(JAVA_INT, 4, BLOCKS);
            request.set(JAVA_INT, 8, FRAME_SIZE);
            request.set(JAVA_INT, 12, FRAMES);
            setOption(fd, state, request, PacketFanout.SOL_PACKET, PACKET_RX_RING, "PACKET_RX_RING");
            final MemorySegment address;
            try
            {
                address = (MemorySegment)LIBC.mmap().invokeExact(state, MemorySegment.NULL, LENGTH, PROT_READ_WRITE,
                    MAP_SHARED, fd, 0L);
            }
            catch (final Throwable ex)
            {
                throw new Unavailable("libc mmap() failed to run: " + ex);
            }
            if (address.address() == -1L)
            {
                throw new Unavailable("mmap() of the packet ring failed: errno " + errno(state), errno(state));
            }
            return new PacketRing(address.reinterpret(LENGTH));
        }
    }

    /**
     * Copies the next datagram out of the ring and hands its frame back to the kernel.
     * Allocation-free.
     *
     * @param target   where the datagram goes, from its IPv4 header on.
     * @param capacity bytes available there.
     * @return bytes copied (fewer than the datagram's own lengths say when it was cut short), or -1
     *         when no datagram is waiting.
     */
    long receive(final MemorySegment target, final long capacity)
    {
        final int frame = (next / FRAMES_PER_BLOCK) * BLOCK_SIZE + (next % FRAMES_PER_BLOCK) * FRAME_SIZE;
        if ((frames.getIntVolatile(frame + STATUS_OFFSET) & TP_STATUS_USER) == 0)
        {
            return -1;
        }
        final int snapshot = frames.getInt(frame + SNAPSHOT_LENGTH_OFFSET);
        final int length = (int)Math.min(Math.min(snapshot, frames.getInt(frame + LENGTH_OFFSET)), capacity);
        final int network = frames.getShort(frame + NETWORK_OFFSET) & 0xFFFF;
        final int copied = Math.max(0, Math.min(length, FRAME_SIZE - network));
        MemorySegment.copy(mapping, frame + network, target, 0, copied);
        // The copy is read before the frame goes back: the kernel may write the next lap into it.
        frames.putIntOrdered(frame + STATUS_OFFSET, TP_STATUS_KERNEL);
        next = next + 1 == FRAMES ? 0 : next + 1;
        return copied;
    }

    /**
     * Unmaps the ring. Call before the socket closes: the kernel complains of a socket closed while
     * its ring is still mapped.
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            try
            {
                final int ignored = (int)LIBC.munmap().invokeExact(mapping, LENGTH);
            }
            catch (final Throwable ex)
            {
                // the mapping is abandoned either way
            }
        }
    }
}
