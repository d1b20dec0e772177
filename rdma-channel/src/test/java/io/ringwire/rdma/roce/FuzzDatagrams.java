package io.ringwire.rdma.roce;

import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.util.List;
import java.util.Random;

import static io.ringwire.rdma.roce.RoceWire.*;

/**
 * Builds the bad-input test's datagrams, seeded, into the {@link FuzzRequester}'s send buffer:
 * random bytes of random length, and RC packets aimed at a victim queue pair (or at an unknown
 * queue pair number, or corrupted copies aimed at the healthy one) whose fields are drawn near the
 * interesting edges (expected PSN and its neighbours, addresses just outside the target, in the
 * guards, overflowing; foreign, dead and wrong-access rkeys; DMA lengths off by one, negative,
 * huge; wrong pads, opcodes, truncations), then mutated byte-wise. Half leave with an ICRC computed
 * after every mutation, so they reach the queue pair logic; half with a broken one.
 */
final class FuzzDatagrams
{
    static final int RANDOM_BYTES = 0;
    static final int TO_VICTIM = 1;
    static final int TO_UNKNOWN_QUEUE_PAIR = 2;
    static final int TO_HEALTHY_CORRUPTED = 3;
    static final String[] CATEGORY_NAMES = {
        "random bytes", "packets to a victim QP", "packets to an unknown QPN", "corrupted packets to the healthy QP" };

    private static final int[] START_OPCODES = {
        WRITE_ONLY, WRITE_ONLY, WRITE_ONLY, WRITE_ONLY_WITH_IMMEDIATE, WRITE_ONLY_WITH_IMMEDIATE, WRITE_FIRST,
        WRITE_FIRST, SEND_ONLY, SEND_ONLY, SEND_ONLY_WITH_IMMEDIATE, SEND_FIRST };

    private final Random random;
    private final FuzzRequester requester;
    private final FuzzMemory memory;
    private final UnsafeBuffer buffer;

    /** Of the last datagram built. */
    int category;
    boolean icrcIntact;
    boolean mutated;

    FuzzDatagrams(final Random random, final FuzzRequester requester, final FuzzMemory memory)
    {
        this.random = random;
        this.requester = requester;
        this.memory = memory;
        this.buffer = requester.sendView;
    }

    /**
     * Builds one datagram.
     *
     * @param victims       the live victims (some may be in ERROR).
     * @param unknownQpn    a queue pair number the device does not have (random, or a closed victim's).
     * @param healthyQpn    the healthy queue pair on the fuzzed device.
     * @param healthyRkey   its region's rkey.
     * @return its length in the send buffer.
     */
    int next(final List<FuzzVictim> victims, final int unknownQpn, final int healthyQpn, final int healthyRkey,
        final long healthyAddress)
    {
        mutated = false;
        final int choice = random.nextInt(100);
        if (choice < 12)
        {
            category = RANDOM_BYTES;
            return randomBytes();
        }
        final FuzzVictim victim = pickVictim(victims);
        if (choice < 20)
        {
            category = TO_UNKNOWN_QUEUE_PAIR;
            return finishIcrc(aimedAt(victim, unknownQpn), random.nextBoolean());
        }
        if (choice < 23)
        {
            category = TO_HEALTHY_CORRUPTED;
            final int payload = random.nextInt(65);
            final int length = request(WRITE_ONLY_WITH_IMMEDIATE, 0xFFFF, healthyQpn, true,
                random.nextInt(PSN_MASK + 1), healthyAddress + random.nextInt(64), healthyRkey, payload,
                random.nextInt(), payload);
            return finishIcrc(random.nextInt(10) < 3 ? mutate(length) : length, false);
        }
        category = TO_VICTIM;
        return finishIcrc(aimedAt(victim, victim.queuePairNumber), random.nextBoolean());
    }

    private int randomBytes()
    {
        final int choice = random.nextInt(10);
        final int length = choice < 3 ? random.nextInt(16) : choice < 7 ? 16 + random.nextInt(48) :
            64 + random.nextInt(1437);
        fillRandom(0, length);
        if (length > 1 && random.nextBoolean())
        {
            // Look like a BTH often enough to get past the parser to the ICRC and beyond.
            buffer.putByte(0, (byte)(random.nextInt(7) == 0 ? ACKNOWLEDGE : random.nextInt(WRITE_ONLY_WITH_IMMEDIATE + 1)));
            buffer.putByte(1, (byte)(buffer.getByte(1) & 0xF0));
        }
        icrcIntact = false;
        if (length >= 16 && random.nextInt(5) == 0)
        {
            requester.stampIcrc(length);
            icrcIntact = true;
        }
        return length;
    }

    /** Mostly a victim still in RTS: one in ERROR only drops what it gets. */
    private FuzzVictim pickVictim(final List<FuzzVictim> victims)
    {
        final FuzzVictim any = victims.get(random.nextInt(victims.size()));
        if (!any.error || pick(15))
        {
            return any;
        }
        for (final FuzzVictim victim : victims)
        {
            if (!victim.error)
            {
                return victim;
            }
        }
        return any;
    }

    /** A packet for {@code victim}'s state, addressed to {@code destinationQp}, maybe mutated. */
    private int aimedAt(final FuzzVictim victim, final int destinationQp)
    {
        final int psn = psnFor(victim);
        if (psn == victim.expectedPsn && destinationQp == victim.queuePairNumber && !victim.error && pick(50))
        {
            return validRequest(victim);
        }
        final int pkey = pick(88) ? 0xFFFF : pick(33) ? 0x7FFF : random.nextInt(0x10000);
        final int length;
        if (random.nextInt(100) < 8)
        {
            length = acknowledge(destinationQp, psn, random.nextInt(256), random.nextInt(PSN_MASK + 1), pkey);
        }
        else
        {
            length = requestFor(victim, destinationQp, psn, pkey);
        }
        return random.nextInt(100) < 30 ? mutate(length) : length;
    }

    /**
     * A request the victim must execute (or answer with RNR when it needs a receive it lacks):
     * the next packet of the message in progress, or a new message of up to three packets.
     */
    private int validRequest(final FuzzVictim victim)
    {
        final int mtu = victim.pathMtu;
        final int psn = victim.expectedPsn;
        final int qpn = victim.queuePairNumber;
        final boolean ackRequest = pick(70);
        if (victim.messageKind == FuzzVictim.WRITE_MESSAGE)
        {
            final boolean middle = victim.writeRemaining > mtu;
            return request(middle ? WRITE_MIDDLE : random.nextBoolean() ? WRITE_LAST : WRITE_LAST_WITH_IMMEDIATE, 0xFFFF,
                qpn, ackRequest, psn, 0, 0, 0, random.nextInt(), middle ? mtu : victim.writeRemaining);
        }
        if (victim.messageKind == FuzzVictim.SEND_MESSAGE)
        {
            final int room = victim.sendReceive.capacity() - victim.sendReceived;
            if (room > 2 * mtu && pick(50))
            {
                return request(SEND_MIDDLE, 0xFFFF, qpn, ackRequest, psn, 0, 0, 0, 0, mtu);
            }
            return request(random.nextBoolean() ? SEND_LAST : SEND_LAST_WITH_IMMEDIATE, 0xFFFF, qpn, ackRequest, psn, 0, 0,
                0, random.nextInt(), 1 + random.nextInt(Math.max(1, Math.min(room, mtu))));
        }
        final int kind = random.nextInt(10);
        if (kind < 6)
        {
            final int dma = kind < 2 ? mtu + 1 + random.nextInt(2 * mtu) : 1 + random.nextInt(mtu);
            final int opcode = dma > mtu ? WRITE_FIRST : kind < 4 ? WRITE_ONLY : WRITE_ONLY_WITH_IMMEDIATE;
            return request(opcode, 0xFFFF, qpn, ackRequest, psn,
                memory.target.address() + random.nextInt(FuzzMemory.TARGET_LENGTH - dma + 1), memory.target.rkey(), dma,
                random.nextInt(), Math.min(dma, mtu));
        }
        final int capacity = victim.receives.isEmpty() ? mtu : victim.receives.peekFirst().capacity();
        if (kind < 8 || capacity <= mtu)
        {
            return request(kind == 9 ? SEND_ONLY_WITH_IMMEDIATE : SEND_ONLY, 0xFFFF, qpn, ackRequest, psn, 0, 0, 0,
                random.nextInt(), random.nextInt(Math.min(capacity, mtu) + 1));
        }
        return request(SEND_FIRST, 0xFFFF, qpn, ackRequest, psn, 0, 0, 0, 0, mtu);
    }

    private int psnFor(final FuzzVictim victim)
    {
        final int choice = random.nextInt(100);
        final int expected = victim.expectedPsn;
        if (choice < 42)
        {
            return expected;
        }
        if (choice < 55)
        {
            return addPsn(expected, 1 + random.nextInt(4));
        }
        if (choice < 68)
        {
            return addPsn(expected, -1 - random.nextInt(4));
        }
        if (choice < 72)
        {
            // The edges of the duplicate window: 2^23 - 1 behind is a duplicate, 2^23 ahead wraps to behind.
            return addPsn(expected, random.nextBoolean() ? 0x7F_FFFF : 0x80_0000);
        }
        return random.nextInt(PSN_MASK + 1);
    }

    private int requestFor(final FuzzVictim victim, final int destinationQp, final int psn, final int pkey)
    {
        if (pick(4))
        {
            return refusedOperation(destinationQp, psn, pkey);
        }
        final int mtu = victim.pathMtu;
        final int opcode = opcodeFor(victim);
        final int payload = payloadFor(victim, opcode, mtu);
        int dma = 0;
        long virtualAddress = 0;
        int rkey = 0;
        if (hasReth(opcode))
        {
            dma = opcode == WRITE_FIRST ? (pick(75) ? mtu + 1 + random.nextInt(2 * mtu) : oddLength(payload, mtu)) :
                pick(80) ? payload : oddLength(payload, mtu);
            virtualAddress = virtualAddressFor(dma);
            rkey = rkey();
        }
        return request(opcode, pkey, destinationQp, random.nextInt(10) < 7, psn, virtualAddress, rkey, dma,
            random.nextInt(), payload);
    }

    /**
     * An RDMA READ request or an atomic, which the responder refuses. Its RETH or AtomicETH travels
     * as the payload of {@link RocePacket#writeRequestHeaders} (which writes only SEND and WRITE
     * headers): random fields, half the time naming the target region, which must stay untouched.
     */
    private int refusedOperation(final int destinationQp, final int psn, final int pkey)
    {
        final int opcode = switch (random.nextInt(3))
        {
            case 0 -> READ_REQUEST;
            case 1 -> COMPARE_SWAP;
            default -> FETCH_ADD;
        };
        final int header = opcode == READ_REQUEST ? RETH_LENGTH : ATOMIC_ETH_LENGTH;
        final int length = request(opcode, pkey, destinationQp, pick(70), psn, 0, 0, 0, 0, header);
        if (pick(50))
        {
            buffer.putLong(BTH_LENGTH, memory.target.address() + random.nextInt(64), ByteOrder.BIG_ENDIAN);
            buffer.putInt(BTH_LENGTH + 8, memory.target.rkey(), ByteOrder.BIG_ENDIAN);
            requester.stampIcrc(length);
        }
        return length;
    }

    private int opcodeFor(final FuzzVictim victim)
    {
        if (victim.messageKind == FuzzVictim.WRITE_MESSAGE && pick(60))
        {
            return victim.writeRemaining > victim.pathMtu && pick(70) ? WRITE_MIDDLE :
                random.nextBoolean() ? WRITE_LAST : WRITE_LAST_WITH_IMMEDIATE;
        }
        if (victim.messageKind == FuzzVictim.SEND_MESSAGE && pick(60))
        {
            final int room = victim.sendReceive.capacity() - victim.sendReceived;
            return room > victim.pathMtu && pick(30) ? SEND_MIDDLE :
                random.nextBoolean() ? SEND_LAST : SEND_LAST_WITH_IMMEDIATE;
        }
        if (pick(80))
        {
            return START_OPCODES[random.nextInt(START_OPCODES.length)];
        }
        return random.nextInt(WRITE_ONLY_WITH_IMMEDIATE + 1);
    }

    private int payloadFor(final FuzzVictim victim, final int opcode, final int mtu)
    {
        final boolean starts = startsMessage(opcode);
        final boolean ends = endsMessage(opcode);
        if (!ends)
        {
            return pick(85) ? mtu : random.nextInt(mtu + 9);
        }
        if (starts)
        {
            return pick(15) ? 0 : pick(95) ? 1 + random.nextInt(mtu) : mtu + 1 + random.nextInt(16);
        }
        if (isWrite(opcode) && victim.messageKind == FuzzVictim.WRITE_MESSAGE && pick(75))
        {
            return Math.max(1, Math.min(victim.writeRemaining, mtu));
        }
        if (!isWrite(opcode) && victim.messageKind == FuzzVictim.SEND_MESSAGE && pick(70))
        {
            final int room = victim.sendReceive.capacity() - victim.sendReceived;
            return 1 + random.nextInt(Math.max(1, Math.min(room, mtu)));
        }
        return random.nextInt(mtu + 9);
    }

    /** A DMA length that is wrong for the packet in some interesting way. */
    private int oddLength(final int payload, final int mtu)
    {
        return switch (random.nextInt(10))
        {
            case 0 -> 0;
            case 1 -> payload + 1;
            case 2 -> payload - 1;
            case 3 -> mtu;
            case 4 -> FuzzMemory.TARGET_LENGTH + 1;
            case 5 -> random.nextInt();
            case 6 -> Integer.MIN_VALUE + random.nextInt(1024);
            case 7 -> Integer.MAX_VALUE;
            case 8 -> -1;
            default -> random.nextInt(FuzzMemory.TARGET_LENGTH * 2);
        };
    }

    private long virtualAddressFor(final int dma)
    {
        final long target = memory.target.address();
        final int length = FuzzMemory.TARGET_LENGTH;
        if (pick(65))
        {
            return target + (dma >= 0 && dma <= length ? random.nextInt(length - dma + 1) : random.nextInt(length));
        }
        return switch (random.nextInt(12))
        {
            case 0 -> target - 1 - random.nextInt(64);
            case 1 -> target + length - Math.max(0, Math.min(dma, length)) + 1 + random.nextInt(64);
            case 2 -> target + length;
            case 3 -> memory.slabAddress() + random.nextInt(FuzzMemory.SLAB_LENGTH);
            case 4 -> memory.localOnly.address() + random.nextInt(FuzzMemory.LOCAL_LENGTH);
            case 5 -> memory.receives.address() + random.nextInt(FuzzMemory.RECEIVE_SLOT);
            case 6 -> memory.deadAddress + random.nextInt(FuzzMemory.DEAD_LENGTH);
            case 7 -> 0;
            case 8 -> random.nextLong();
            case 9 -> -1L - random.nextInt(256);
            case 10 -> target + Long.MIN_VALUE;
            default -> Long.MAX_VALUE - random.nextInt(16);
        };
    }

    private int rkey()
    {
        final int choice = random.nextInt(100);
        if (choice < 72)
        {
            return memory.target.rkey();
        }
        if (choice < 80)
        {
            return memory.localOnly.rkey();
        }
        if (choice < 85)
        {
            return memory.receives.rkey();
        }
        if (choice < 90)
        {
            return memory.deadRkey;
        }
        if (choice < 95)
        {
            return random.nextInt();
        }
        if (choice < 97)
        {
            return 0;
        }
        return memory.target.rkey() ^ (1 << random.nextInt(32));
    }

    /** Flips, overwrites, truncates or extends bytes of the packet. @return the new length. */
    private int mutate(final int length)
    {
        mutated = true;
        int current = length;
        final int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations; m++)
        {
            switch (random.nextInt(9))
            {
                case 0 ->
                {
                    if (current > 0)
                    {
                        final int index = random.nextInt(current);
                        buffer.putByte(index, (byte)(buffer.getByte(index) ^ (1 << random.nextInt(8))));
                    }
                }
                case 1 ->
                {
                    if (current > 0)
                    {
                        buffer.putByte(random.nextInt(Math.min(current, 40)), (byte)random.nextInt());
                    }
                }
                case 2 ->
                {
                    if (current > 1)
                    {
                        buffer.putByte(1, (byte)((buffer.getByte(1) & ~BTH_PAD_MASK) | random.nextInt(4) << BTH_PAD_SHIFT));
                    }
                }
                case 3 ->
                {
                    if (current > 1)
                    {
                        buffer.putByte(1, (byte)(buffer.getByte(1) | (1 + random.nextInt(15))));
                    }
                }
                case 4 ->
                {
                    if (current > 0)
                    {
                        buffer.putByte(0, (byte)(random.nextBoolean() ? random.nextInt(256) : random.nextInt(0x12)));
                    }
                }
                case 5 -> current = pick(70) ? Math.max(0, current - 1 - random.nextInt(8)) : random.nextInt(current + 1);
                case 6 ->
                {
                    final int extra = 1 + random.nextInt(16);
                    for (int i = 0; i < extra && current < FuzzRequester.MAX_DATAGRAM; i++)
                    {
                        buffer.putByte(current++, (byte)random.nextInt());
                    }
                }
                case 7 ->
                {
                    if (current >= BTH_LENGTH)
                    {
                        buffer.putInt(BTH_DEST_QP_OFFSET, random.nextInt(PSN_MASK + 1), ByteOrder.BIG_ENDIAN);
                    }
                }
                default ->
                {
                    if (current >= BTH_LENGTH + RETH_LENGTH)
                    {
                        final int field = BTH_LENGTH + (random.nextBoolean() ? RETH_DMA_LENGTH_OFFSET : RETH_VA_OFFSET + 4);
                        buffer.putInt(field, buffer.getInt(field, ByteOrder.BIG_ENDIAN) + random.nextInt(9) - 4,
                            ByteOrder.BIG_ENDIAN);
                    }
                }
            }
        }
        return current;
    }

    /**
     * Leaves the ICRC correct (recomputed over the final bytes) or makes sure it is wrong (the
     * original ICRC of a mutated packet, or one bit flipped).
     */
    private int finishIcrc(final int length, final boolean intact)
    {
        // Shorter than a BTH and an ICRC: no ICRC to speak of (the device drops it as malformed).
        icrcIntact = intact && length >= BTH_LENGTH + Icrc.LENGTH;
        if (length < BTH_LENGTH + Icrc.LENGTH)
        {
            return length;
        }
        if (intact)
        {
            requester.stampIcrc(length);
            return length;
        }
        if (!mutated)
        {
            final int index = random.nextInt(length);
            buffer.putByte(index, (byte)(buffer.getByte(index) ^ (1 << random.nextInt(8))));
        }
        final int stored = buffer.getInt(length - Icrc.LENGTH, ByteOrder.LITTLE_ENDIAN);
        if (requester.icrcOf(length) == stored)
        {
            buffer.putInt(length - Icrc.LENGTH, stored ^ (1 << random.nextInt(32)), ByteOrder.LITTLE_ENDIAN);
        }
        return length;
    }

    /** An RC request with a correct ICRC. @return its length. */
    int request(final int opcode, final int pkey, final int destinationQp, final boolean ackRequest, final int psn,
        final long virtualAddress, final int rkey, final int dma, final int immediate, final int payload)
    {
        final int payloadIndex = RocePacket.writeRequestHeaders(buffer, 0, opcode, pkey, destinationQp, ackRequest, psn,
            virtualAddress, rkey, dma, immediate, payload);
        fillRandom(payloadIndex, payload);
        final int length = RocePacket.finish(buffer, 0, payloadIndex + payload);
        requester.stampIcrc(length);
        return length;
    }

    /** An ACKNOWLEDGE with a correct ICRC. @return its length. */
    int acknowledge(final int destinationQp, final int psn, final int syndrome, final int messageSequenceNumber,
        final int pkey)
    {
        final int length = RocePacket.writeAcknowledge(buffer, 0, pkey, destinationQp, psn, syndrome,
            messageSequenceNumber) + Icrc.LENGTH;
        requester.stampIcrc(length);
        return length;
    }

    private void fillRandom(final int index, final int count)
    {
        int i = 0;
        for (; i + Long.BYTES <= count; i += Long.BYTES)
        {
            buffer.putLong(index + i, random.nextLong());
        }
        for (; i < count; i++)
        {
            buffer.putByte(index + i, (byte)random.nextInt());
        }
    }

    private boolean pick(final int percent)
    {
        return random.nextInt(100) < percent;
    }
}
