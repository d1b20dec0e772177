package io.ringwire.rdma.roce;

import io.ringwire.rdma.Completion;
import io.ringwire.rdma.DeviceCounters;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the fuzzed device must do with each datagram, in the order the device checks (the roce
 * section of docs/architecture.md and {@link RoceReceiver}'s contract): parse, ICRC, destination
 * queue pair, P_Key, then the queue pair's responder ({@link FuzzVictim}). Keeps the counters and
 * the victims' completions the device must show. The ICRC rule follows the device: one that sees
 * each packet's IP header takes only an ICRC that verifies with the ID the fuzz socket's datagrams
 * carry (0); one that predicts IDs drops a packet that only some other ID verifies as unverified,
 * once it has found the queue pair (which the fuzz socket is the peer of).
 *
 * <p>{@link #classify} is pure; {@link #apply} commits it.
 */
final class FuzzResponderModel
{
    static final int MALFORMED = 0;
    static final int ICRC_ERROR = 1;
    static final int UNKNOWN_QUEUE_PAIR = 2;
    static final int BAD_PARTITION_KEY = 3;
    static final int TO_VICTIM = 4;
    /**
     * Would reach the healthy or the marker queue pair, or carries a corruption a predicting device
     * would take for a predicted ID: never sent.
     */
    static final int PROTECTED = 5;
    /** Dropped as unverified by a device that predicts IP IDs (its ICRC matches only a solved ID). */
    static final int ICRC_UNVERIFIED = 6;
    static final String[] VERDICT_NAMES = {
        "malformed", "ICRC error", "unknown queue pair", "bad P_Key", "reached a victim queue pair",
        "protected (never sent)", "ICRC unverified" };

    private static final int FULL_PARTITION_KEY_LOW_BITS = 0x7FFF;

    final FuzzParsed parsed = new FuzzParsed();
    final long[] counters = new long[DeviceCounters.COUNT];
    /** Completions the victims' completion queue must deliver next, in order. */
    final List<Completion> pendingCompletions = new ArrayList<>();
    final Map<Integer, FuzzVictim> victims = new LinkedHashMap<>();
    final Set<Integer> protectedQueuePairs = new HashSet<>();
    private final FuzzMemory memory;

    FuzzVictim lastVictim;
    int lastDecision;
    /** Corrupted datagrams that did not count as ICRC errors: their ICRC verified with some IP ID. */
    long corruptedButAccepted;

    /** Whether the device checks the ICRC against the IP ID each packet carried. */
    private final boolean carriedIdChecked;

    FuzzResponderModel(final FuzzMemory memory, final boolean carriedIdChecked)
    {
        this.memory = memory;
        this.carriedIdChecked = carriedIdChecked;
    }

    /**
     * @param requester whose send buffer holds the datagram.
     * @param length    its length.
     * @return the verdict; after TO_VICTIM, {@link #lastVictim} and {@link #lastDecision}.
     */
    int classify(final FuzzRequester requester, final int length)
    {
        lastVictim = null;
        lastDecision = -1;
        if (!parsed.parse(requester.sendView, length))
        {
            return MALFORMED;
        }
        final int icrc = requester.icrcCheck(length);
        if (icrc == FuzzRequester.ICRC_BROKEN || (icrc != FuzzRequester.ICRC_INTACT && carriedIdChecked))
        {
            return ICRC_ERROR;
        }
        if (icrc == FuzzRequester.ICRC_PREDICTABLE)
        {
            return PROTECTED; // a predicting device would take it for the ID after the last: steered away
        }
        if (protectedQueuePairs.contains(parsed.destinationQp))
        {
            return PROTECTED;
        }
        final FuzzVictim victim = victims.get(parsed.destinationQp);
        if (null == victim)
        {
            return UNKNOWN_QUEUE_PAIR;
        }
        if ((parsed.partitionKey & 0x7FFF) != FULL_PARTITION_KEY_LOW_BITS)
        {
            return BAD_PARTITION_KEY;
        }
        if (icrc == FuzzRequester.ICRC_SOLVABLE)
        {
            return ICRC_UNVERIFIED;
        }
        lastVictim = victim;
        lastDecision = victim.decide(parsed, memory);
        return TO_VICTIM;
    }

    /** Commits the last {@link #classify}. */
    void apply(final int verdict, final FuzzRequester requester, final boolean icrcIntact, final int batch)
    {
        switch (verdict)
        {
            case MALFORMED -> counters[DeviceCounters.RESPONDER_MALFORMED]++;
            case ICRC_ERROR -> counters[DeviceCounters.ICRC_ERRORS]++;
            case UNKNOWN_QUEUE_PAIR -> counters[DeviceCounters.UNKNOWN_QUEUE_PAIR]++;
            case BAD_PARTITION_KEY -> counters[DeviceCounters.BAD_PARTITION_KEY]++;
            case ICRC_UNVERIFIED -> counters[DeviceCounters.ICRC_UNVERIFIED]++;
            case TO_VICTIM -> lastVictim.apply(lastDecision, parsed, requester.sendView, memory, counters,
                pendingCompletions, batch);
            default -> throw new IllegalArgumentException("verdict " + verdict + " is never sent");
        }
        if ((verdict == UNKNOWN_QUEUE_PAIR || verdict == BAD_PARTITION_KEY || verdict == TO_VICTIM ||
            verdict == ICRC_UNVERIFIED) && !icrcIntact)
        {
            corruptedButAccepted++; // not counted as an ICRC error
        }
    }
}
