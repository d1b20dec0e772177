package io.ringwire.exchange.demo;

import org.junit.jupiter.api.Test;

import static io.ringwire.exchange.demo.SimulatedClients.ACK_REJECT_REASONS;
import static io.ringwire.exchange.demo.SimulatedClients.REJECT_REASONS;
import static io.ringwire.exchange.demo.SimulatedClients.REPLY_GAPS;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Where a reject's reason is counted: in its own block of counters, never in the next one. */
class ReplyReaderTest
{
    @Test
    void aReasonPastItsBlockIsNotCountedInTheCountersThatFollowIt()
    {
        assertEquals(REJECT_REASONS + 3, ReplyReader.reasonCounter(REJECT_REASONS, ACK_REJECT_REASONS, 3));
        assertEquals(ACK_REJECT_REASONS - 1,
            ReplyReader.reasonCounter(REJECT_REASONS, ACK_REJECT_REASONS, ACK_REJECT_REASONS - REJECT_REASONS - 1));
        assertEquals(-1, ReplyReader.reasonCounter(REJECT_REASONS, ACK_REJECT_REASONS, ACK_REJECT_REASONS - REJECT_REASONS));

        // The last block of reasons is followed by the reply counters (gaps, duplicates...).
        assertEquals(REPLY_GAPS - 1,
            ReplyReader.reasonCounter(ACK_REJECT_REASONS, REPLY_GAPS, REPLY_GAPS - ACK_REJECT_REASONS - 1));
        assertEquals(-1, ReplyReader.reasonCounter(ACK_REJECT_REASONS, REPLY_GAPS, REPLY_GAPS - ACK_REJECT_REASONS));
        assertEquals(-1, ReplyReader.reasonCounter(ACK_REJECT_REASONS, REPLY_GAPS, -1));
    }
}
