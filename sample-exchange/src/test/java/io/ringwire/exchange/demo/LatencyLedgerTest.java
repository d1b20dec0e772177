package io.ringwire.exchange.demo;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LatencyLedgerTest
{
    @Test
    void aHopThatEndsBeforeItBeginsIsCountedApartAndAnAbsentOneIsNot()
    {
        final LatencyLedger ledger = new LatencyLedger();
        // The engine's clock reads 50 ns behind the gateway's: "gateway to engine" ends before it begins.
        ledger.recordAck(1_000, 1_100, 1_200, 1_150, 1_300, 1_400, 1_500, 900);
        // A reject before logon: the gateway's reply carries no engine times.
        ledger.recordAck(2_000, 2_100, 0, 0, 0, 2_200, 2_300, 1_900);

        final Histogram[] recorded = ledger.interval();
        assertEquals(0, recorded[2].getTotalCount(), "gateway to engine recorded nothing");
        assertEquals(1, ledger.negative(2));
        assertEquals(1, recorded[3].getTotalCount(), "in engine, from the same two times, is recorded");
        assertEquals(0, ledger.negative(3) + ledger.negative(1) + ledger.negative(4), "absent times are not negative");
        assertEquals(2, recorded[LatencyLedger.ORDER_TO_ACK].getTotalCount());
        assertEquals("gateway to engine 1", ledger.negativeHops());
        final long[] parsed = new long[LatencyLedger.HOPS.length];
        parsed[2] = 1;
        parsed[4] = 3;
        assertEquals("gateway to engine 1, " + LatencyLedger.HOPS[4] + " 3", LatencyLedger.negativeHops(parsed),
            "the multi-process summary's counts, parsed from its clients' reports, read the same");

        ledger.reset();
        assertEquals(0, ledger.negative(2), "a warm-up's readings are forgotten with its histograms");
        assertEquals("", ledger.negativeHops());
    }
}
