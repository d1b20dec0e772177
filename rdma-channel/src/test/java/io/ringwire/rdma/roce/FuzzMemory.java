package io.ringwire.rdma.roce;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.ProtectionDomain;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;

/**
 * Everything the fuzzed responder could reach, as one direct allocation filled with random bytes
 * and a shadow copy holding what the spec says it must contain. Regions and unregistered guards
 * are adjacent, so a write one byte past a region lands in a guard:
 *
 * <pre>
 *   guard | TARGET (REMOTE_WRITE) | guard | LOCAL-ONLY region | guard | DEREGISTERED region | guard
 *         | RECEIVE buffers (LOCAL_WRITE, SENDs land here) | guard
 * </pre>
 *
 * The only bytes that may change are the target's (RDMA WRITEs the model accepted) and the
 * receive buffers' (SENDs the model accepted); everything else must stay as it was.
 */
final class FuzzMemory
{
    static final int GUARD = 1024;
    static final int TARGET_LENGTH = 4096;
    static final int LOCAL_LENGTH = 2048;
    static final int DEAD_LENGTH = 1024;
    static final int RECEIVE_SLOT = 512;
    static final int RECEIVE_SLOTS = 64;

    static final int TARGET_OFFSET = GUARD;
    static final int LOCAL_OFFSET = TARGET_OFFSET + TARGET_LENGTH + GUARD;
    static final int DEAD_OFFSET = LOCAL_OFFSET + LOCAL_LENGTH + GUARD;
    static final int RECEIVE_OFFSET = DEAD_OFFSET + DEAD_LENGTH + GUARD;
    static final int SLAB_LENGTH = RECEIVE_OFFSET + RECEIVE_SLOT * RECEIVE_SLOTS + GUARD;

    /** {@link #check} results, in the order the checks apply. */
    static final int ACCESS_OK = 0;
    static final int UNKNOWN_RKEY = 1;
    static final int ACCESS_DENIED = 2;
    static final int OUT_OF_BOUNDS = 3;
    /** The rkey of a region in another protection domain (see the cross-domain test). */
    static final int OTHER_DOMAIN = 4;

    final UnsafeBuffer slab;
    final byte[] shadow = new byte[SLAB_LENGTH];
    final MemoryRegion target;
    final MemoryRegion localOnly;
    final MemoryRegion receives;
    final int deadRkey;
    final long deadAddress;
    private final Set<Integer> otherDomainKeys = new HashSet<>();
    private final byte[] actual = new byte[SLAB_LENGTH];
    private long lastOffset;

    FuzzMemory(final ProtectionDomain domain, final Random random)
    {
        final ByteBuffer memory = ByteBuffer.allocateDirect(SLAB_LENGTH + 64).alignedSlice(64);
        memory.limit(SLAB_LENGTH);
        slab = new UnsafeBuffer(memory, 0, SLAB_LENGTH);
        random.nextBytes(shadow);
        slab.putBytes(0, shadow);
        target = domain.register(memory.slice(TARGET_OFFSET, TARGET_LENGTH), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        localOnly = domain.register(memory.slice(LOCAL_OFFSET, LOCAL_LENGTH), Access.LOCAL_WRITE);
        receives = domain.register(memory.slice(RECEIVE_OFFSET, RECEIVE_SLOT * RECEIVE_SLOTS), Access.LOCAL_WRITE);
        final MemoryRegion dead = domain.register(memory.slice(DEAD_OFFSET, DEAD_LENGTH),
            Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        deadRkey = dead.rkey();
        deadAddress = dead.address();
        dead.close();
    }

    /** Declares the rkey of a region of another protection domain on the same device. */
    void addOtherDomainKey(final int rkey)
    {
        otherDomainKeys.add(rkey);
    }

    /** @return the address of the slab's first byte. */
    long slabAddress()
    {
        return slab.addressOffset();
    }

    /**
     * The responder's access check as the spec (and docs/architecture.md) puts it: the rkey names a
     * live region of the queue pair's protection domain, the region allows REMOTE_WRITE, and
     * {@code [va, va + length)} lies inside it. Keys are looked up in the order of the checks.
     *
     * @return one of the result constants; after ACCESS_OK, {@link #lastOffset()} is the offset in
     *         the target.
     */
    int check(final int rkey, final long virtualAddress, final int length)
    {
        if (otherDomainKeys.contains(rkey))
        {
            return OTHER_DOMAIN;
        }
        final MemoryRegion region;
        if (rkey == target.rkey())
        {
            region = target;
        }
        else if (rkey == localOnly.rkey())
        {
            region = localOnly;
        }
        else if (rkey == receives.rkey())
        {
            region = receives;
        }
        else
        {
            return UNKNOWN_RKEY;
        }
        if ((region.access() & Access.REMOTE_WRITE) == 0)
        {
            return ACCESS_DENIED;
        }
        final long start = region.address();
        final long offset = virtualAddress - start;
        if (Long.compareUnsigned(virtualAddress, start) < 0 || Long.compareUnsigned(offset, region.length()) > 0 ||
            length < 0 || length > region.length() - offset)
        {
            return OUT_OF_BOUNDS;
        }
        lastOffset = offset;
        return ACCESS_OK;
    }

    long lastOffset()
    {
        return lastOffset;
    }

    /** Applies an accepted write to the shadow's target. */
    void writeTarget(final long offsetInTarget, final DirectBuffer source, final int sourceOffset, final int length)
    {
        source.getBytes(sourceOffset, shadow, TARGET_OFFSET + (int)offsetInTarget, length);
    }

    /** Applies accepted SEND bytes to the shadow's receive buffers. */
    void writeReceive(final int offsetInReceives, final DirectBuffer source, final int sourceOffset, final int length)
    {
        source.getBytes(sourceOffset, shadow, RECEIVE_OFFSET + offsetInReceives, length);
    }

    /** @return null when memory equals the shadow, else where and how it differs first. */
    String firstDifference()
    {
        slab.getBytes(0, actual);
        final int index = java.util.Arrays.mismatch(actual, shadow);
        if (index < 0)
        {
            return null;
        }
        int differing = 0;
        for (int i = index; i < SLAB_LENGTH; i++)
        {
            if (actual[i] != shadow[i])
            {
                differing++;
            }
        }
        return differing + " byte(s) differ from what the spec allows, the first at slab offset " + index + " (" +
            area(index) + "): is 0x" + Integer.toHexString(actual[index] & 0xFF) + ", must be 0x" +
            Integer.toHexString(shadow[index] & 0xFF);
    }

    static String area(final int offset)
    {
        if (offset < TARGET_OFFSET)
        {
            return "guard before the target, " + (TARGET_OFFSET - offset) + " byte(s) before it";
        }
        if (offset < TARGET_OFFSET + TARGET_LENGTH)
        {
            return "target + " + (offset - TARGET_OFFSET);
        }
        if (offset < LOCAL_OFFSET)
        {
            return "guard after the target, " + (offset - TARGET_OFFSET - TARGET_LENGTH) + " byte(s) past its end";
        }
        if (offset < LOCAL_OFFSET + LOCAL_LENGTH)
        {
            return "local-only region + " + (offset - LOCAL_OFFSET);
        }
        if (offset < DEAD_OFFSET)
        {
            return "guard after the local-only region";
        }
        if (offset < DEAD_OFFSET + DEAD_LENGTH)
        {
            return "deregistered region + " + (offset - DEAD_OFFSET);
        }
        if (offset < RECEIVE_OFFSET)
        {
            return "guard before the receive buffers";
        }
        if (offset < RECEIVE_OFFSET + RECEIVE_SLOT * RECEIVE_SLOTS)
        {
            return "receive slot " + (offset - RECEIVE_OFFSET) / RECEIVE_SLOT + " + " +
                (offset - RECEIVE_OFFSET) % RECEIVE_SLOT;
        }
        return "guard after the receive buffers";
    }
}
