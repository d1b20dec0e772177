package io.ringwire.exchange.demo;

import io.ringwire.codecs.trading.LogonResponseDecoder;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A client's place in its numbered replies, alone: gaps counted, resends dropped, a new gateway life followed. */
class ReplySequenceTest
{
    private static final long LIFE = 0x5EED_0001L;
    private static final long NO_LIFE = LogonResponseDecoder.replyLifeNullValue();

    /** A client that logged on once, answered in {@link #LIFE} from 1, and received these replies. */
    private static ReplySequence receivedInLife(final long... replies)
    {
        final ReplySequence sequence = new ReplySequence();
        sequence.askAtLogon();
        sequence.onStart(1, LIFE);
        for (final long reply : replies)
        {
            sequence.onReply(reply);
        }
        return sequence;
    }

    @Test
    void repliesInOrderPassAndAJumpCountsTheRepliesSkipped()
    {
        final ReplySequence sequence = new ReplySequence();
        assertEquals(0, sequence.askAtLogon());
        assertEquals(0, sequence.life(), "no gateway named a life yet");
        assertEquals(0, sequence.onStart(1, LIFE));
        assertEquals(LIFE, sequence.life());
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
        final ReplySequence sequence = receivedInLife(1, 2);
        assertEquals(3, sequence.askAtLogon());
        sequence.onReply(3); // in flight before the answer
        assertEquals(0, sequence.onStart(3, LIFE)); // the answer resends from 3: already had
        assertEquals(ReplySequence.DUPLICATE, sequence.onReply(3));
        assertEquals(0, sequence.onReply(4));
    }

    @Test
    void anAnswerStartingPastWhatWasAskedCountsTheRepliesNoLongerKept()
    {
        final ReplySequence sequence = receivedInLife(1);
        assertEquals(2, sequence.askAtLogon());
        assertEquals(8, sequence.onStart(10, LIFE)); // 2 to 9 were no longer kept
        assertEquals(0, sequence.onReply(10));
        assertEquals(0, sequence.onStart(0, 0)); // a gateway that numbers nothing
        // The codec's nulls: an answer of a version before numbering.
        assertEquals(0, sequence.onStart(Long.MIN_VALUE, NO_LIFE));
        assertEquals(0, sequence.onReply(11)); // neither moved the place
        assertEquals(ReplySequence.DUPLICATE, sequence.onReply(10));
    }

    @Test
    void aFirstLogonWhoseAnswerStartsPastOneTakesRepliesFromThereOn()
    {
        final ReplySequence sequence = new ReplySequence();
        assertEquals(0, sequence.askAtLogon());
        assertEquals(0, sequence.onStart(5, LIFE)); // nothing had been received: no gap to count
        assertEquals(ReplySequence.DUPLICATE, sequence.onReply(4));
        assertEquals(0, sequence.onReply(5));
        assertEquals(1, sequence.onReply(7));
    }

    @Test
    void anAnswerOfAnotherReplyLifeIsFollowedFromItsStartWithNoGapCountedWhereverItStarts()
    {
        final long restarted = LIFE + 1;
        final ReplySequence sequence = receivedInLife(1, 2);
        assertEquals(3, sequence.askAtLogon());
        assertEquals(LIFE, sequence.life(), "the logon names the life its 3 was counted in");
        // A restarted gateway's numbering: past what was asked here, yet no gap of this client's.
        assertEquals(0, sequence.onStart(5, restarted));
        assertEquals(restarted, sequence.life());
        assertEquals(ReplySequence.DUPLICATE, sequence.onReply(4));
        assertEquals(0, sequence.onReply(5));
        assertEquals(6, sequence.askAtLogon());
        assertEquals(0, sequence.onStart(1, LIFE + 2)); // and before what was asked
        assertEquals(0, sequence.onReply(1));
    }

    @Test
    void anAnswerNamingNoLifeThatStartsBeforeWhatWasAskedIsAnotherGatewayLifeWhoseSequenceIsFollowed()
    {
        final ReplySequence sequence = new ReplySequence();
        sequence.onReply(1);
        sequence.onReply(2);
        assertEquals(3, sequence.askAtLogon());
        assertEquals(0, sequence.onStart(1, NO_LIFE)); // a restarted gateway of version 3 numbers from 1 again
        assertEquals(0, sequence.life());
        assertEquals(0, sequence.onReply(1));
        assertEquals(0, sequence.onReply(2));
    }
}
