package io.ringwire.rdma.interop;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.Endpoint;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.SendFlags;
import io.ringwire.rdma.cm.RegionAdvertisement;

/**
 * One side of the interop exchange, run the same way by both processes: it sends {@code writes}
 * WRITE_WITH_IMM messages into the peer's advertised ring, then {@code sends} SENDs, while it
 * receives and checks the peer's. Every message's length and bytes derive from its direction and
 * sequence number (the immediate carries both), so each side verifies what lands byte for byte
 * and in order. A receive is reposted only after the message it took has been checked, so the
 * sender can never overwrite a ring slot the receiver has not read yet.
 */
final class InteropTraffic
{
    /** Ring slots (and receive buffers) of {@link #SLOT} bytes each. */
    static final int SLOTS = 512;
    /** Largest message: two packets at rxe's 1024-byte path MTU on a 1500-byte veth. */
    static final int SLOT = 2048;
    static final int RING_LENGTH = SLOTS * SLOT;
    /** Receives kept posted. */
    static final int RECEIVES = 48;
    /**
     * Sends outstanding at most (below every queue's depth): with more, completions could outrun
     * the completion queue (depth 1024) between two polls and be lost as overruns.
     */
    static final int WINDOW = 16;

    private final Endpoint endpoint;
    private final int direction;
    private final int writes;
    private final int sends;
    private final MemoryRegion staging;
    /** The ring the peer writes into; also the SEND receive buffers. */
    final MemoryRegion ring;
    private final byte[] scratch = new byte[SLOT];

    private long remoteAddress;
    private int remoteRkey;
    private int posted;
    private int completedSends;
    private int receivedWrites;
    private int receivedSends;
    private long receiveSerial;
    private String failure;

    /**
     * @param direction 0 or 1: which side this is (it salts the payload so a reflected message is caught).
     */
    InteropTraffic(final Endpoint endpoint, final int direction, final int writes, final int sends)
    {
        this.endpoint = endpoint;
        this.direction = direction;
        this.writes = writes;
        this.sends = sends;
        this.staging = endpoint.domain.allocateRegion(RING_LENGTH, Access.LOCAL_WRITE);
        this.ring = endpoint.domain.allocateRegion(RING_LENGTH, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
    }

    RegionAdvertisement advertisement()
    {
        return new RegionAdvertisement(ring.address(), ring.rkey(), ring.length());
    }

    /** Posts the first receives: call before the queue pair reaches RTR. */
    void postInitialReceives()
    {
        for (int i = 0; i < RECEIVES; i++)
        {
            postReceive();
        }
    }

    void remote(final RegionAdvertisement remote)
    {
        this.remoteAddress = remote.address();
        this.remoteRkey = remote.rkey();
    }

    static int length(final int seq)
    {
        return 1 + (int)((seq * 2654435761L >>> 7) % SLOT);
    }

    static byte value(final int dir, final int seq, final int i)
    {
        return (byte)(seq * 31 + i * 7 + dir * 101 + (i >>> 8));
    }

    /** Seq in the upper bits, direction in bit 0, send-vs-write in bit 1. */
    private static int immediate(final int dir, final int seq)
    {
        return (seq << 2) | dir;
    }

    private void postReceive()
    {
        final int slot = (int)(receiveSerial % SLOTS);
        final int rc = endpoint.queuePair.postReceive(receiveSerial, ring, slot * SLOT, SLOT);
        if (rc != PostResult.OK)
        {
            fail("postReceive " + PostResult.name(rc));
        }
        receiveSerial++;
    }

    private void fail(final String message)
    {
        if (null == failure)
        {
            failure = "side " + direction + ": " + message;
        }
    }

    /** Runs until everything is sent, acknowledged, received and checked, or the deadline; @return null or the first failure. */
    String run(final long deadlineNs)
    {
        final int total = writes + sends;
        while (null == failure && (completedSends < total || receivedWrites < writes || receivedSends < sends))
        {
            if (System.nanoTime() > deadlineNs)
            {
                fail("timed out: posted " + posted + "/" + total + ", completed " + completedSends + ", received writes " +
                    receivedWrites + "/" + writes + ", sends " + receivedSends + "/" + sends);
                break;
            }
            while (posted < total && posted - completedSends < WINDOW && null == failure)
            {
                final int seq = posted;
                final int len = length(seq);
                final int offset = (seq % SLOTS) * SLOT;
                for (int i = 0; i < len; i++)
                {
                    scratch[i] = value(direction, seq, i);
                }
                staging.buffer().putBytes(offset, scratch, 0, len);
                final int rc = seq < writes ?
                    endpoint.queuePair.postWriteWithImmediate(seq, staging, offset, len,
                        remoteAddress + offset, remoteRkey, immediate(direction, seq), SendFlags.SIGNALED) :
                    endpoint.queuePair.postSend(seq, staging, offset, len, SendFlags.SIGNALED);
                if (rc == PostResult.QUEUE_FULL)
                {
                    break;
                }
                if (rc != PostResult.OK)
                {
                    fail("post " + seq + ": " + PostResult.name(rc));
                    break;
                }
                posted++;
            }
            for (int i = 0; i < 16 && endpoint.completionQueue.poll(this::onCompletion, 64) > 0 && null == failure; i++)
            {
                // drain what is there
            }
        }
        return failure;
    }

    private void onCompletion(final long id, final int opcode, final int status, final int length, final int imm, final int qpn)
    {
        if (status != CompletionStatus.SUCCESS)
        {
            fail("completion " + CompletionOpcode.name(opcode) + " id " + id + ": " + CompletionStatus.name(status));
            return;
        }
        final int peer = 1 - direction;
        if (opcode == CompletionOpcode.RECV_RDMA_WITH_IMM)
        {
            final int seq = imm >>> 2;
            if ((imm & 3) != peer || seq != receivedWrites)
            {
                fail("WRITE_WITH_IMM immediate 0x" + Integer.toHexString(imm) + ", expected seq " + receivedWrites + " from side " + peer);
                return;
            }
            check("WRITE_WITH_IMM", seq, length, (seq % SLOTS) * SLOT);
            receivedWrites++;
            postReceive();
        }
        else if (opcode == CompletionOpcode.RECV)
        {
            final int seq = writes + receivedSends;
            check("SEND", seq, length, (int)(id % SLOTS) * SLOT);
            receivedSends++;
            postReceive();
        }
        else if (opcode == CompletionOpcode.RDMA_WRITE || opcode == CompletionOpcode.SEND)
        {
            if (id != completedSends)
            {
                fail("send completion id " + id + " out of order, expected " + completedSends);
            }
            completedSends++;
        }
        else
        {
            fail("unexpected completion " + CompletionOpcode.name(opcode));
        }
    }

    private void check(final String what, final int seq, final int length, final int offset)
    {
        final int expected = length(seq);
        if (length != expected)
        {
            fail(what + " " + seq + ": length " + length + ", expected " + expected);
            return;
        }
        ring.buffer().getBytes(offset, scratch, 0, length);
        final int peer = 1 - direction;
        for (int i = 0; i < length; i++)
        {
            if (scratch[i] != value(peer, seq, i))
            {
                fail(what + " " + seq + " (" + length + " bytes): byte " + i + " is " + scratch[i] + ", expected " +
                    value(peer, seq, i));
                return;
            }
        }
    }

    String progress()
    {
        return "sent " + completedSends + "/" + (writes + sends) + " received writes " + receivedWrites + " sends " + receivedSends;
    }
}
