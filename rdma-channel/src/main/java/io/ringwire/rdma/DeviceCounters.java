package io.ringwire.rdma;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Counters a device keeps, written by the owning threads (increments are single-writer per queue
 * pair but may come from several queue pairs, so they are atomic) and readable from any thread.
 * Each counter says how often something a user should look at happened.
 *
 * <p>The values live in an {@link AtomicBuffer} of {@link #LENGTH} bytes, one 8-byte slot per
 * counter: private memory by default, or a shared-memory mapping, so that a requester in another
 * process can count a refusal on the responder's counters (the shm provider does).
 */
public final class DeviceCounters
{
    /** Remote requests refused because the rkey names no registered region. */
    public static final int RESPONDER_UNKNOWN_RKEY = 0;
    /** Remote requests refused because the range was outside the region. */
    public static final int RESPONDER_OUT_OF_BOUNDS = 1;
    /** Remote requests refused because the region lacks the access they need. */
    public static final int RESPONDER_ACCESS_DENIED = 2;
    /** Malformed or unexpected frames/packets dropped by the responder. */
    public static final int RESPONDER_MALFORMED = 3;
    /** Incoming SENDs whose receive buffer was too small. */
    public static final int RESPONDER_LENGTH_ERROR = 4;
    /** Completions with an error status delivered to the application. */
    public static final int ERROR_COMPLETIONS = 5;
    /** Requests flushed because a queue pair went to ERROR. */
    public static final int FLUSHED_REQUESTS = 6;
    /** Peers detected as gone (closed connection, dead process, liveness timeout). */
    public static final int PEERS_LOST = 7;
    /** Completions dropped because a completion queue was full (size it larger). */
    public static final int COMPLETION_QUEUE_OVERRUNS = 8;
    /** Work requests written (sent) by requesters. */
    public static final int REQUESTS_SENT = 9;
    /** Remote requests executed by responders. */
    public static final int REQUESTS_EXECUTED = 10;
    /** Retransmitted requests or packets. */
    public static final int RETRANSMITS = 11;
    /** Packets dropped because their invariant CRC did not match (corrupted in flight). */
    public static final int ICRC_ERRORS = 12;
    /** Packets for a queue pair number this device does not have. */
    public static final int UNKNOWN_QUEUE_PAIR = 13;
    /** Packets with a partition key other than the queue pair's. */
    public static final int BAD_PARTITION_KEY = 14;
    /** Duplicate requests (already executed): acknowledged again, never re-applied. */
    public static final int DUPLICATE_REQUESTS = 15;
    /** Sequence-error NAKs sent for a gap in PSNs (one per gap). */
    public static final int SEQUENCE_NAKS_SENT = 16;
    /** Packets dropped because they arrived ahead of a gap. */
    public static final int OUT_OF_ORDER_DROPPED = 17;
    /** NAKs received by requesters (sequence, RNR, access, invalid, operational). */
    public static final int NAKS_RECEIVED = 18;
    /** Receiver-not-ready NAKs sent: a request needed a receive and none was posted. */
    public static final int RNR_NAKS_SENT = 19;
    /** Retransmit timer expiries on requesters. */
    public static final int RETRANSMIT_TIMEOUTS = 20;
    /**
     * Well-formed requests for an operation this responder does not execute (RDMA READ, atomics):
     * refused with an invalid-request NAK, which ends the requester's queue pair in error.
     */
    public static final int RESPONDER_REFUSED_OPERATION = 21;
    /** Acknowledgement packets (ACKs and NAKs of every kind) sent by responders. */
    public static final int ACKNOWLEDGEMENTS_SENT = 22;
    /**
     * ACKs and NAKs dropped for a PSN outside the requester's outstanding window, as the IBA's
     * requester (and rxe's completer) treats them: stale duplicates, or forged; on shm, also a
     * failure status in the peer's ring that no responder writes (the SEND completes in error).
     */
    public static final int GHOST_ACKNOWLEDGEMENTS = 23;
    /**
     * Packets dropped because they came from another address, or (once learnt) another UDP source
     * port, than the queue pair's peer.
     */
    public static final int FOREIGN_PACKETS = 24;
    /**
     * roce without a view of the IP header: packets whose ICRC matched only an IP Identification
     * solved out of the packet itself, not one predicted before it arrived. Dropped (the reliable
     * connection resends them); each teaches the ID its successor must carry.
     */
    public static final int ICRC_UNVERIFIED = 25;
    /**
     * Connections a socket device's listener closed without handing them to a queue pair: a hello
     * that named no waiting queue pair or not the negotiation it belongs to, a hello not complete
     * within the peer timeout, or a connection past the bound on hellos waiting from one address or
     * in all.
     */
    public static final int CONNECTIONS_REFUSED = 26;
    /**
     * Packets for a queue pair in ERROR: applied to nothing and answered with nothing, as the IBA
     * has it; a peer still sending into a connection this side has failed shows here.
     */
    public static final int ERROR_STATE_DROPPED = 27;

    private static final String[] NAMES = {
        "responder unknown rkey", "responder out of bounds", "responder access denied",
        "responder malformed", "responder length error", "error completions", "flushed requests",
        "peers lost", "completion queue overruns", "requests sent", "requests executed", "retransmits",
        "icrc errors", "unknown queue pair", "bad partition key", "duplicate requests", "sequence naks sent",
        "out of order dropped", "naks received", "rnr naks sent", "retransmit timeouts",
        "responder refused operation", "acknowledgements sent", "ghost acknowledgements", "foreign packets",
        "icrc unverified", "connections refused", "error state dropped" };

    /** Number of counters. */
    public static final int COUNT = NAMES.length;

    /** Bytes of the buffer behind the counters. */
    public static final int LENGTH = COUNT * Long.BYTES;

    private final AtomicBuffer values;

    /**
     * Counters in private memory.
     */
    public DeviceCounters()
    {
        this(new UnsafeBuffer(ByteBuffer.allocateDirect(LENGTH)));
    }

    /**
     * Counters in the given memory (e.g. a shared mapping), which must be 8-byte aligned.
     *
     * @param values at least {@link #LENGTH} bytes.
     */
    public DeviceCounters(final AtomicBuffer values)
    {
        if (values.capacity() < LENGTH)
        {
            throw new IllegalArgumentException("counters need " + LENGTH + " bytes, got " + values.capacity());
        }
        values.verifyAlignment();
        this.values = values;
    }

    /**
     * Adds one. Allocation-free.
     *
     * @param counter one of the constants.
     */
    public void increment(final int counter)
    {
        values.getAndAddLong(counter * Long.BYTES, 1);
    }

    /**
     * Adds a delta. Allocation-free.
     *
     * @param counter one of the constants.
     * @param delta   to add.
     */
    public void add(final int counter, final long delta)
    {
        values.getAndAddLong(counter * Long.BYTES, delta);
    }

    /**
     * @param counter one of the constants.
     * @return its current value.
     */
    public long get(final int counter)
    {
        return values.getLongVolatile(counter * Long.BYTES);
    }

    /**
     * @param counter one of the constants.
     * @return its label.
     */
    public static String name(final int counter)
    {
        return NAMES[counter];
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("DeviceCounters{");
        for (int i = 0; i < COUNT; i++)
        {
            sb.append(i == 0 ? "" : ", ").append(NAMES[i]).append('=').append(get(i));
        }
        return sb.append('}').toString();
    }
}
