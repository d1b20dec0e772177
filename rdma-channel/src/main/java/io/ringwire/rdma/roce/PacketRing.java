package io.ringwire.rdma.roce;

import io.ringwire.rdma.roce.LibcSockets.Unavailable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static io.ringwire.rdma.roce.LibcSockets.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

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
 * <p>The mapping belongs to a shared arena whose close unmaps it: a thread still polling a device
 * that another closes (a progress agent not yet stopped) then gets an {@link IllegalStateException}
 * from its next read, never a read of memory no longer mapped.
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
    /** 240 frames: more small datagrams than a default receive buffer holds, nearly two 128-PSN windows. */
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
    private static final VarHandle STATUS = JAVA_INT.varHandle();

    private final Arena arena = Arena.ofShared();
    private final MemorySegment frames;
    private int next;
    /** munmap() succeeded: written by the arena's cleanup, read after its close. */
    private boolean unmapped;

    @SuppressWarnings("restricted")
    private PacketRing(final MemorySegment address)
    {
        this.frames = address.reinterpret(LENGTH, arena, this::release);
    }

    /**
     * Gives a packet socket a receive ring and maps it. Call before the socket joins a fanout group:
     * setting a ring takes the socket off the kernel's list and puts it back, which would move it to
     * the end of its group.
     *
     * @param fd a packet socket with no ring yet.
     * @return the ring.
     * @throws Unavailable when the kernel refuses the ring or the mapping (then open a socket without
     *                     one: a socket whose ring could not be mapped gets no datagram through
     *                     {@code recv} either).
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
            return new PacketRing(address);
        }
    }

    /** The arena's cleanup, once no thread reads the ring. */
    private void release(final MemorySegment mapping)
    {
        final int result;
        try
        {
            result = (int)LIBC.munmap().invokeExact(MemorySegment.ofAddress(mapping.address()), LENGTH);
        }
        catch (final Throwable ex)
        {
            return; // the caller sees the ring still mapped
        }
        unmapped = result == 0;
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
        final long frame = (long)(next / FRAMES_PER_BLOCK) * BLOCK_SIZE + (long)(next % FRAMES_PER_BLOCK) * FRAME_SIZE;
        if (((int)STATUS.getAcquire(frames, frame + STATUS_OFFSET) & TP_STATUS_USER) == 0)
        {
            return -1;
        }
        final int snapshot = frames.get(JAVA_INT, frame + SNAPSHOT_LENGTH_OFFSET);
        final long length = Math.min(Math.min(snapshot, frames.get(JAVA_INT, frame + LENGTH_OFFSET)), capacity);
        final int network = frames.get(JAVA_SHORT, frame + NETWORK_OFFSET) & 0xFFFF;
        final long copied = Math.max(0, Math.min(length, FRAME_SIZE - network));
        MemorySegment.copy(frames, frame + network, target, 0, copied);
        // The copy is read before the frame goes back: the kernel may write the next lap into it.
        STATUS.setRelease(frames, frame + STATUS_OFFSET, TP_STATUS_KERNEL);
        next = next + 1 == FRAMES ? 0 : next + 1;
        return copied;
    }

    /**
     * Unmaps the ring, once no thread is reading it. Call before the socket closes: the mapping
     * holds the socket, which a close would leave open (and in its fanout group) while it lasts.
     * Idempotent.
     *
     * @return true when the ring is unmapped; false when munmap() failed, and the socket with it
     *         must be left as it is.
     */
    boolean unmap()
    {
        if (arena.scope().isAlive())
        {
            arena.close();
        }
        return unmapped;
    }

    @Override
    public void close()
    {
        unmap();
    }
}
