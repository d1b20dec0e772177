package io.ringwire.exchange.demo;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A client's place in its numbered replies, alone: gaps counted, resends dropped, a new gateway life followed. */
class ReplySequenceTest
{
    @Test
    void repliesInOrderPassAndAJumpCountsTheRepliesSkipped()
    {
        final ReplySequence sequence = new ReplySequence();
        assertEquals(0, sequence.askAtLogon());
        assertEquals(0, sequence.onStart(1));
        assertEquals(0, sequence.onReply(1));
        assertEquals(0, sequence.onReply(2));
        assertEquals(ReplySequence.DUPLICATE, sequence.onReply(1));
        assertEquals(3, sequence.onReply(6)); // 3, 4 and 5 never came
        assertEquals(0, sequence.onReply(7));
    }

    @Test
    void aReplyReceivedBeforeIsADuplicateAndAnUnnumberedOnePasses()
    {
        final ReplySequence sequence = new ReplySequence();
        sequence.onReply(1);
        sequence.onReply(2);
        assertEquals(ReplySequence.DUPLICATE, sequence.onReply(2));
        assertEquals(ReplySequence.DUPLICATE, sequence.onReply(1));
        assertEquals(0, sequence.onReply(0));
        assertEquals(0, sequence.onReply(Long.MIN_VALUE)); // the codec's null: a report of a version before numbering
        assertEquals(0, sequence.onReply(3));
    }

    @Test
    void aLogonAsksForWhatFollowsTheLastReplyAndAResendOfRepliesThatCameMeanwhileIsDropped()
    {
        final ReplySequence sequence = new ReplySequence();
        sequence.onReply(1);
        sequence.onReply(2);
        assertEquals(3, sequence.askAtLogon());
        sequence.onReply(3); // in flight before the answer
        assertEquals(0, sequence.onStart(3)); // the answer resends from 3: already had
        assertEquals(ReplySequence.DUPLICATE, sequence.onReply(3));
        assertEquals(0, sequence.onReply(4));
    }

    @Test
    void anAnswerStartingPastWhatWasAskedCountsTheRepliesNoLongerKept()
    {
        final ReplySequence sequence = new ReplySequence();
        sequence.onReply(1);
        assertEquals(2, sequence.askAtLogon());
        assertEquals(8, sequence.onStart(10)); // 2 to 9 were no longer kept
        assertEquals(0, sequence.onReply(10));
        assertEquals(0, sequence.onStart(0)); // a gateway that numbers nothing
        assertEquals(0, sequence.onStart(Long.MIN_VALUE)); // the codec's null: an answer of a version before numbering
        assertEquals(0, sequence.onReply(11)); // neither moved the place
        assertEquals(ReplySequence.DUPLICATE, sequence.onReply(10));
    }

    @Test
    void aFirstLogonWhoseAnswerStartsPastOneTakesRepliesFromThereOn()
    {
        final ReplySequence sequence = new ReplySequence();
        assertEquals(0, sequence.askAtLogon());
        assertEquals(0, sequence.onStart(5)); // nothing had been received: no gap to count
        assertEquals(ReplySequence.DUPLICATE, sequence.onReply(4));
        assertEquals(0, sequence.onReply(5));
        assertEquals(1, sequence.onReply(7));
    }

    @Test
    void anAnswerStartingBeforeWhatWasAskedIsAnotherGatewayLifeWhoseSequenceIsFollowed()
    {
        final ReplySequence sequence = new ReplySequence();
        sequence.onReply(1);
        sequence.onReply(2);
        assertEquals(3, sequence.askAtLogon());
        assertEquals(0, sequence.onStart(1)); // a restarted gateway numbers from 1 again
        assertEquals(0, sequence.onReply(1));
        assertEquals(0, sequence.onReply(2));
    }
}
