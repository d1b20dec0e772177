package io.ringwire.exchange.demo;

import io.ringwire.exchange.engine.EngineConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The demo's and the benchmark's gateway is given room for every client order id its run will use:
 * the gateway refuses ids past a session's room, so a run that outlasts it measures rejects.
 */
class ExchangeDemoConfigTest
{
    private static final int DEFAULT_ROOM = 1 << 20;

    @Test
    void aRunOfKnownLengthGivesEachSessionRoomForARequestASecondOfItsShareAndAQuarterMore()
    {
        // One client at a million requests a second for 5 s of warm-up and 10 measured.
        final int room = ExchangeDemo.clientOrderIdsPerSession(1, 1_000_000, 15);
        assertTrue(room >= 15_000_000, "room for 15 M ids: " + room);
        assertEquals(18_750_000, room);
        // Four clients share the rate: each needs a quarter.
        assertEquals(1_000_000L * 15 / 4 * 5 / 4, ExchangeDemo.clientOrderIdsPerSession(4, 1_000_000, 15));
    }

    @Test
    void aShortOrUnboundedRunKeepsTheDefaultRoom()
    {
        assertEquals(DEFAULT_ROOM, ExchangeDemo.clientOrderIdsPerSession(4, 1_000, 10));
        assertEquals(DEFAULT_ROOM, ExchangeDemo.clientOrderIdsPerSession(1, 1_000_000, 0));
    }

    @Test
    void theRoomOfAllSessionsTogetherIsCappedSoTheGatewaysTablesStayBounded()
    {
        final int sessions = 16;
        final int room = ExchangeDemo.clientOrderIdsPerSession(sessions, 10_000_000, 600);
        assertEquals((1 << 25) / sessions, room);
        assertEquals(1 << 25, ExchangeDemo.clientOrderIdsPerSession(1, 100_000_000, 3600));
    }

    @Test
    void theGatewayConfigurationCarriesTheRoom()
    {
        final EngineConfig engine = ExchangeDemo.engineConfig(2, 2);
        assertEquals(ExchangeDemo.clientOrderIdsPerSession(2, 400_000, 15),
            ExchangeDemo.gatewayConfig(2, 400_000, engine, 15).maxClientOrderIdsPerSession());
        assertEquals(DEFAULT_ROOM, ExchangeDemo.gatewayConfig(2, 400_000, engine, 0).maxClientOrderIdsPerSession());
    }

    @Test
    void aRunWithFixMembersGivesEverySessionTheLimitsOfTheLargerShareOfTheTwoRates()
    {
        // One SBE client at 10,000/s beside four FIX members sharing 1,000/s: the client's share
        // rules; it was throttled at the rate spread over all five sessions (half its orders).
        assertEquals(10_000, ExchangeDemo.sessionShare(1, 10_000, 4, 1_000));
        assertEquals(5_000, ExchangeDemo.sessionShare(4, 4_000, 2, 10_000), "the members' share");
        assertEquals(334, ExchangeDemo.sessionShare(3, 1_000, 0, 0), "rounded up");
        final EngineConfig engine = ExchangeDemo.engineConfig(2, 5);
        final var config = ExchangeDemo.gatewayConfigForShare(5, 100_000, engine, 15);
        assertEquals(5, config.sessions().size());
        assertEquals(2 * 100_000 + 1000, config.maxMessagesPerSecond(), "twice the share");
        assertEquals(100_000 * 15 * 5 / 4, config.maxClientOrderIdsPerSession(), "an id a request, a quarter more");
        final var alone = ExchangeDemo.gatewayConfig(1, 100_000, engine, 15);
        assertEquals(alone.maxMessagesPerSecond(), config.maxMessagesPerSecond(),
            "the limits one client alone at that rate gets");
        assertEquals(alone.maxClientOrderIdsPerSession(), config.maxClientOrderIdsPerSession());
    }

    @Test
    void theMultiProcessDemosRoleFilesCarryTheRoomOfItsRun()
    {
        final Path nowhere = Path.of("unused");
        assertEquals(ExchangeDemo.clientOrderIdsPerSession(2, 400_000, 15),
            ExchangeDemo.roleFiles(2, 2, 400_000, 1, nowhere, nowhere, "", 15).gateway().maxClientOrderIdsPerSession());
    }
}
