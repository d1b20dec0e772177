package io.ringwire.exchange.node;

import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.OrderAddedDecoder;
import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.engine.EngineOutput;
import io.ringwire.exchange.engine.JournaledEngine;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exchange's times are UTC: the gateway stamps each request's receipt on the epoch, the journal
 * keeps it, and the engine's execution reports and market data carry it as their transact time.
 * Read back by replaying the journal of a real run, so every report the run made is looked at.
 *
 * <p>Thread layout: {@link InProcessRoles}'s; the replay runs on the test's thread after they stop.
 */
@Tag("system")
class ExchangeTimesTest extends InProcessRolesBase
{
    @Test
    void everyReportAndMarketDataMessageCarriesATransactTimeOnTheWallClockOfTheRun() throws Exception
    {
        final Path journal = directory.resolve("journal");
        final EngineConfig config = ExchangeDemo.engineConfig(4, 2);
        final long startNs = wallNs();
        openRoles(2, 4, 4_000);
        roles.start(journal, config, 1 << 20, EngineThreads.NONE);
        roles.await(() -> roles.engine.engine().applied() >= 500, "500 requests applied");
        roles.close();
        final long endNs = wallNs();

        final Times reports = new Times();
        final Times marketData = new Times();
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        final ExecutionReportDecoder report = new ExecutionReportDecoder();
        final OrderAddedDecoder added = new OrderAddedDecoder();
        final EngineOutput output = new EngineOutput()
        {
            @Override
            public void executionReport(final DirectBuffer buffer, final int offset, final int length)
            {
                header.wrap(buffer, offset);
                report.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH, header.blockLength(),
                    header.version());
                reports.add(report.transactTime());
            }

            @Override
            public void marketData(final DirectBuffer buffer, final int offset, final int length)
            {
                header.wrap(buffer, offset);
                if (header.templateId() == OrderAddedDecoder.TEMPLATE_ID)
                {
                    added.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH, header.blockLength(),
                        header.version());
                    marketData.add(added.transactTime());
                }
            }
        };
        try (JournaledEngine replayed = JournaledEngine.recover(journal, config, output, true))
        {
            assertTrue(replayed.applied() >= 500, "the run's requests replayed: " + replayed.applied());
        }

        assertTrue(reports.count >= 500, "reports: " + reports.count);
        assertTrue(marketData.count > 0, "orders added to the books: " + marketData.count);
        reports.assertWithin(startNs, endNs, "execution reports");
        marketData.assertWithin(startNs, endNs, "market data");
    }

    private static long wallNs()
    {
        final Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** The earliest and latest of some times, and how many. */
    private static final class Times
    {
        long count;
        long earliest = Long.MAX_VALUE;
        long latest = Long.MIN_VALUE;

        void add(final long time)
        {
            count++;
            earliest = Math.min(earliest, time);
            latest = Math.max(latest, time);
        }

        /** Within the run, give or take the offset's sampling (a millisecond is far more). */
        void assertWithin(final long startNs, final long endNs, final String what)
        {
            final long slackNs = 1_000_000;
            assertTrue(earliest >= startNs - slackNs && latest <= endNs + slackNs, what + "' transact times " +
                earliest + " to " + latest + " lie outside the run's wall clock, " + startNs + " to " + endNs);
        }
    }
}
