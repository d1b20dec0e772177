package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.RdmaException;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

// "restricted": this class binds native functions or gives native pointers a size (FFM restricted methods);
// the JVM runs with --enable-native-access=ALL-UNNAMED (surefire argLine, ./ringwire, jar manifest).
/**
 * A region registered with {@code ibv_reg_mr}: the NIC pins its pages and names it by lkey (local
 * requests) and rkey (remote peers). {@link #address()} is the real virtual address, which peers
 * use as the remote address of their writes.
 *
 * <p>Threading: accessors from any thread; {@link #close()} on the control thread, after the
 * owning threads stopped posting with it.
 */
@SuppressWarnings("restricted")
final class IbverbsMemoryRegion implements MemoryRegion
{
    private final IbverbsProtectionDomain domain;
    private final MemorySegment mr;
    private final long address;
    private final int length;
    private final int lkey;
    private final int rkey;
    private final int access;
    private final UnsafeBuffer buffer;
    private final Arena ownedMemory;
    // Keeps the application's buffer (and so its memory) reachable while the NIC may access it.
    private final ByteBuffer registeredBuffer;
    private boolean closed;

    /**
     * @param domain           the domain that registered it.
     * @param mr               the {@code struct ibv_mr *}.
     * @param length           registered bytes.
     * @param access           Access flags.
     * @param ownedMemory      the arena of memory the domain allocated for it, freed at close; or null.
     * @param registeredBuffer the application's buffer, kept reachable while registered; or null.
     */
    IbverbsMemoryRegion(final IbverbsProtectionDomain domain, final MemorySegment mr, final int length,
        final int access, final Arena ownedMemory, final ByteBuffer registeredBuffer)
    {
        final MemorySegment fields = mr.reinterpret(VerbsLayouts.MR.byteSize());
        this.domain = domain;
        this.mr = mr;
        this.address = fields.get(JAVA_LONG, VerbsLayouts.MR_ADDR);
        this.length = length;
        this.lkey = fields.get(JAVA_INT, VerbsLayouts.MR_LKEY);
        this.rkey = fields.get(JAVA_INT, VerbsLayouts.MR_RKEY);
        this.access = access;
        this.buffer = new UnsafeBuffer(address, length);
        this.ownedMemory = ownedMemory;
        this.registeredBuffer = registeredBuffer;
    }

    @Override
    public long address()
    {
        return address;
    }

    @Override
    public int length()
    {
        return length;
    }

    @Override
    public int lkey()
    {
        return lkey;
    }

    @Override
    public int rkey()
    {
        return rkey;
    }

    @Override
    public int access()
    {
        return access;
    }

    @Override
    public AtomicBuffer buffer()
    {
        return buffer;
    }

    /**
     * @return the domain it was registered in.
     */
    IbverbsProtectionDomain domain()
    {
        return domain;
    }

    /**
     * @return true once deregistered: its keys mean nothing (or something else) to the NIC now.
     */
    boolean isClosed()
    {
        return closed;
    }

    /**
     * Whether {@code [offset, offset + bytes)} lies inside the region. Allocation-free; no overflow
     * (both are ints, compared as longs).
     *
     * @param offset from {@link #address()}.
     * @param bytes  &gt;= 0.
     * @return true when inside.
     */
    boolean contains(final int offset, final int bytes)
    {
        return offset >= 0 && (long)offset + bytes <= length;
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        domain.forget(this);
        try
        {
            domain.device().verbs().deregMr(mr);
        }
        catch (final VerbsCallException ex)
        {
            // Still registered: the NIC may still write the memory, so it is deliberately not freed.
            throw new RdmaException("ibv_dereg_mr of " + this + " on " + domain.device().name() + ": " +
                ex.getMessage() + "; its memory stays allocated", ex);
        }
        domain.device().unpin(length);
        if (null != ownedMemory)
        {
            // The buffer points at nothing before its memory is freed: a write through it fails
            // rather than land in the native heap.
            buffer.wrap(0L, 0);
            ownedMemory.close();
        }
    }

    @Override
    public String toString()
    {
        return "IbverbsMemoryRegion{address=0x" + Long.toHexString(address) + ", length=" + length + ", lkey=0x" +
            Integer.toHexString(lkey) + ", rkey=0x" + Integer.toHexString(rkey) + ", " + Access.toString(access) +
            (closed ? ", closed" : "") + '}';
    }
}
