package io.ringwire.rdma.roce;

import org.junit.jupiter.api.Test;

import static io.ringwire.rdma.roce.AckCoalescer.LEARNED_LIMIT_LIFETIME_PSNS;
import static io.ringwire.rdma.roce.AckCoalescer.MAX_UNACKNOWLEDGED_PSNS;
import static io.ringwire.rdma.roce.AckCoalescer.STALLS_TO_LEARN;
import static io.ringwire.rdma.roce.RoceWire.PSN_MASK;
import static io.ringwire.rdma.roce.RoceWire.addPsn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The coalescing rules on a clock the test sets, so every decision is exact: a responder's view of
 * packets arriving (onRequest, onExecuted), progress rounds (release) and its own requests
 * (releaseWithAnswer).
 */
class AckCoalescerTest
{
    private static final long DELAY_NS = 50_000;
    /** Starts just below the PSN wrap, so the counting crosses it. */
    private static final int FIRST_PSN = PSN_MASK - 5;

    private final AckCoalescer coalescer = new AckCoalescer(DELAY_NS);
    private int expectedPsn = FIRST_PSN;
    private long nowNs = 1_000_000_000L;
    private long answers;

    AckCoalescerTest()
    {
        coalescer.connect(FIRST_PSN);
    }

    /** A packet arrives and is executed; returns whether an ACK became owed. */
    private boolean execute(final boolean ackRequested)
    {
        coalescer.onRequest(nowNs, answers);
        final boolean newlyOwed = coalescer.onExecuted(ackRequested, nowNs);
        expectedPsn = addPsn(expectedPsn, 1);
        return newlyOwed;
    }

    private boolean release()
    {
        return coalescer.release(nowNs, addPsn(expectedPsn, -1), answers);
    }

    private int releasedAfterExecuting(final int packets)
    {
        for (int i = 1; i <= packets; i++)
        {
            execute(true);
            nowNs += 1_000;
            if (release())
            {
                return i;
            }
        }
        return -1;
    }

    @Test
    void anAckIsOwedOnlyWhereAPacketAskedForOne()
    {
        assertFalse(execute(false));
        assertFalse(coalescer.isOwed());
        nowNs += 10 * DELAY_NS;
        assertFalse(release(), "nothing asked for an ACK");
        assertTrue(execute(true), "the first AckReq makes an ACK owed");
        assertFalse(execute(true), "the second finds it owed already");
    }

    @Test
    void withNoDelayTheOwedAckGoesAtTheNextRound()
    {
        final AckCoalescer immediate = new AckCoalescer(0);
        immediate.connect(FIRST_PSN);
        immediate.onRequest(nowNs, 0);
        assertTrue(immediate.onExecuted(true, nowNs));
        assertTrue(immediate.release(nowNs, FIRST_PSN, 0));
        assertFalse(immediate.isOwed());
    }

    @Test
    void theAckGoesWhenSixteenPsnsAreUnacknowledgedAndAgainAfterSixteenMore()
    {
        assertEquals(MAX_UNACKNOWLEDGED_PSNS, releasedAfterExecuting(100), "the first ACK, across the PSN wrap");
        assertEquals(MAX_UNACKNOWLEDGED_PSNS, releasedAfterExecuting(100), "counting restarts at the ACK");
    }

    @Test
    void packetsWithoutAckReqCountTowardsTheLimitOnceAnAckIsOwed()
    {
        execute(true);
        for (int i = 0; i < MAX_UNACKNOWLEDGED_PSNS - 2; i++)
        {
            execute(false);
        }
        assertFalse(release(), "15 PSNs");
        execute(false);
        assertTrue(release(), "16 PSNs, the first of which asked");
    }

    @Test
    void theTimerReleasesTheAckTheDelayAfterTheFirstPacketThatAskedForIt()
    {
        execute(true);
        final long firstNs = nowNs;
        nowNs += DELAY_NS / 2;
        execute(true);
        nowNs = firstNs + DELAY_NS - 1;
        assertFalse(release(), "one nanosecond early");
        nowNs = firstNs + DELAY_NS;
        assertTrue(release(), "at the delay, counted from the first packet it covers");
        assertFalse(coalescer.isOwed());
    }

    @Test
    void aDuplicateIsAcknowledgedAtTheNextRound()
    {
        execute(true);
        assertFalse(release());
        coalescer.onRequest(nowNs, answers);
        assertFalse(coalescer.onDuplicate(nowNs), "already owed");
        assertTrue(release(), "the requester retransmitted: it waits");

        coalescer.onRequest(nowNs, answers);
        assertTrue(coalescer.onDuplicate(nowNs), "a duplicate owes an ACK even when nothing new was executed");
        assertTrue(release());
    }

    @Test
    void aNakAcknowledgesWhatCameBeforeItSoNoAckIsOwedAndCountingRestarts()
    {
        for (int i = 0; i < 10; i++)
        {
            execute(true);
        }
        coalescer.acknowledgedThrough(addPsn(expectedPsn, -1)); // a NAK naming expectedPsn went
        assertFalse(coalescer.isOwed());
        nowNs += 10 * DELAY_NS;
        assertFalse(release(), "nothing owed after the NAK");
        assertEquals(MAX_UNACKNOWLEDGED_PSNS, releasedAfterExecuting(100), "sixteen counted from the NAK");
    }

    /** A run of {@code packets}, then the requester waits until the timer releases the ACK. */
    private void stallAfterRun(final int packets)
    {
        for (int i = 0; i < packets; i++)
        {
            execute(true);
        }
        nowNs += DELAY_NS;
        assertTrue(release(), "the timer");
        nowNs += 5_000; // the requester's next packet comes right after the ACK
    }

    @Test
    void aRequesterThatWaitsForTheAckIsAcknowledgedAfterItsRunFromThenOn()
    {
        // A requester with a send queue of 4 sends 4 and waits: the timer releases the ACK, and its
        // next packet follows right after. Twice in a row: it is waiting for that ACK.
        for (int stall = 0; stall < STALLS_TO_LEARN; stall++)
        {
            stallAfterRun(4);
        }
        assertEquals(4, releasedAfterExecuting(4), "the next run of 4 is acknowledged when complete");
        assertEquals(4, coalescer.limit());
        assertEquals(4, releasedAfterExecuting(4));

        // Forgotten after LEARNED_LIMIT_LIFETIME_PSNS PSNs.
        for (int i = 0; i < LEARNED_LIMIT_LIFETIME_PSNS; i++)
        {
            execute(false);
        }
        assertEquals(MAX_UNACKNOWLEDGED_PSNS, coalescer.limit());
    }

    @Test
    void oneStallIsAPauseNotARequesterWaitingForTheAck()
    {
        stallAfterRun(2);
        assertEquals(MAX_UNACKNOWLEDGED_PSNS, coalescer.limit(), "nothing learned from one stall");
        assertEquals(MAX_UNACKNOWLEDGED_PSNS, releasedAfterExecuting(100), "ACKs still go by count");
    }

    @Test
    void stallsAreCountedInARowOnlyAndABusyTimerReleaseBreaksTheRow()
    {
        stallAfterRun(2);
        // The timer finds the requester busy: it sent until the ACK went, so it was not waiting.
        execute(true);
        nowNs += DELAY_NS - 1_000;
        execute(true);
        nowNs += 1_000;
        assertTrue(release(), "the timer");
        nowNs += 1_000;
        stallAfterRun(2);
        execute(true); // resumes right after: the second stall
        assertEquals(MAX_UNACKNOWLEDGED_PSNS, coalescer.limit(), "two stalls, but not in a row");
    }

    @Test
    void aPacketReadInTheRoundThatReleasedTheAckWasNotWaitingForIt()
    {
        // A thread that polls this device now and then: each time it comes back, the timer releases
        // the owed ACK and the same round then reads the packet that was waiting already.
        execute(true);
        for (int round = 0; round < 3 * STALLS_TO_LEARN; round++)
        {
            nowNs += DELAY_NS;
            assertTrue(release(), "the timer");
            execute(true);
        }
        assertEquals(MAX_UNACKNOWLEDGED_PSNS, coalescer.limit(), "nothing learned");
    }

    @Test
    void aPacketReadInTheRoundThatReleasedTheAckBreaksARowOfStalls()
    {
        stallAfterRun(2);
        execute(true); // a stall: resumed in a later round
        nowNs += DELAY_NS;
        assertTrue(release(), "the timer");
        execute(true); // the same round: it was waiting already
        stallAfterRun(2);
        execute(true); // another stall, but not the second in a row
        assertEquals(MAX_UNACKNOWLEDGED_PSNS, coalescer.limit());
    }

    @Test
    void aPingPongPeerIsNotTakenForOneWaitingForTheAckEvenWhenSlow()
    {
        execute(true);
        answers++; // our answer went to the peer, which now waits for it
        nowNs += DELAY_NS;
        assertTrue(release(), "the timer");
        nowNs += 5_000;
        execute(true); // the peer's next request, right after the ACK
        assertEquals(MAX_UNACKNOWLEDGED_PSNS, coalescer.limit(), "nothing learned");
    }

    @Test
    void aRequesterThatResumesLaterThanTheDelayAfterTheAckWasNotWaitingForIt()
    {
        execute(true);
        nowNs += DELAY_NS;
        assertTrue(release());
        nowNs += DELAY_NS + 1;
        execute(true);
        assertEquals(MAX_UNACKNOWLEDGED_PSNS, coalescer.limit());
    }

    @Test
    void aRequesterThatKeptSendingUntilTheTimerWasNotWaitingForTheAck()
    {
        execute(true);
        nowNs += DELAY_NS - DELAY_NS / 4;
        execute(true); // quiet for only a quarter of the delay when the timer fires
        nowNs += DELAY_NS / 4;
        assertTrue(release());
        nowNs += 1_000;
        execute(true);
        assertEquals(MAX_UNACKNOWLEDGED_PSNS, coalescer.limit());
    }

    @Test
    void behindAnAnswerTheAckGoesWhenItWouldFallDueBeforeTheNextAnswer()
    {
        final long intervalNs = 10_000;
        execute(true);
        final long owedNs = nowNs;
        nowNs = owedNs + DELAY_NS - intervalNs - 1;
        assertFalse(coalescer.releaseWithAnswer(nowNs, addPsn(expectedPsn, -1), intervalNs),
            "the next answer comes before the ACK is due");
        nowNs = owedNs + DELAY_NS - intervalNs;
        assertTrue(coalescer.releaseWithAnswer(nowNs, addPsn(expectedPsn, -1), intervalNs),
            "the timer would release it before the next answer");
        assertFalse(coalescer.isOwed());
        assertFalse(coalescer.releaseWithAnswer(nowNs, addPsn(expectedPsn, -1), intervalNs), "nothing owed");
    }

    @Test
    void behindAnAnswerAnAckDueByCountGoesAtOnce()
    {
        for (int i = 0; i < MAX_UNACKNOWLEDGED_PSNS; i++)
        {
            execute(true);
        }
        assertTrue(coalescer.releaseWithAnswer(nowNs, addPsn(expectedPsn, -1), 1_000));
    }
}
