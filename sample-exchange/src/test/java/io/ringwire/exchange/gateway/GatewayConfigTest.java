package io.ringwire.exchange.gateway;

import io.ringwire.exchange.book.InstrumentSpec;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A configuration the gateway cannot work with fails at construction with a message naming what is
 * wrong.
 */
class GatewayConfigTest
{
    private static final List<SessionConfig> SESSIONS =
        List.of(new SessionConfig(1, "a", 10), new SessionConfig(2, "b", 20));
    private static final List<InstrumentSpec> INSTRUMENTS = List.of(new InstrumentSpec(1, 1, 1, 1, 1_000));
    private static final RiskLimits LIMITS = new RiskLimits(100, 10_000, 10, 5);

    private static void assertRejected(final String expectedInMessage, final Runnable construction)
    {
        final IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, construction::run);
        assertTrue(thrown.getMessage().contains(expectedInMessage),
            "message names the problem: " + thrown.getMessage());
    }

    @Test
    void sessionIdConfiguredTwiceIsRefused()
    {
        assertRejected("session id 1", () -> new GatewayConfig(
            List.of(new SessionConfig(1, "a", 10), new SessionConfig(1, "b", 20)), INSTRUMENTS, new long[]{ 0, 500 },
            LIMITS, 10, 10, 10));
    }

    @Test
    void accountTradedByTwoSessionsIsRefusedSinceReportsRouteByAccount()
    {
        assertRejected("account 10", () -> new GatewayConfig(
            List.of(new SessionConfig(1, "a", 10), new SessionConfig(2, "b", 10)), INSTRUMENTS, new long[]{ 0, 500 },
            LIMITS, 10, 10, 10));
    }

    @Test
    void referencePricesMustCoverEveryInstrumentId()
    {
        assertRejected("referencePrices", () -> new GatewayConfig(SESSIONS, INSTRUMENTS, new long[]{ 500 }, LIMITS,
            10, 10, 10));
    }

    @Test
    void referencePriceOutsideTheInstrumentsBandIsRefused()
    {
        assertRejected("outside its band", () -> new GatewayConfig(SESSIONS, INSTRUMENTS, new long[]{ 0, 5_000 },
            LIMITS, 10, 10, 10));
    }

    @Test
    void rateAndCapacityMustBePositive()
    {
        assertRejected("maxMessagesPerSecond", () -> new GatewayConfig(SESSIONS, INSTRUMENTS, new long[]{ 0, 500 },
            LIMITS, 0, 10, 10));
        assertRejected("maxClientOrderIdsPerSession", () -> new GatewayConfig(SESSIONS, INSTRUMENTS,
            new long[]{ 0, 500 }, LIMITS, 10, 10, 0));
    }

    @Test
    void riskLimitsMustBePositive()
    {
        assertRejected("risk limits", () -> new RiskLimits(0, 1, 1, 1));
        assertRejected("risk limits", () -> new RiskLimits(1, 1, 1, 0));
    }

    @Test
    void aLogonTimeoutOrReplyWaitPastAnHourIsRefusedRatherThanWrappedInNanoseconds()
    {
        assertRejected("logonTimeoutMs 1 to 3600000", () -> new TransportLimits(256, Long.MAX_VALUE, 5, 5, 64, 1 << 20,
            2_000, 1 << 22));
        assertRejected("maxReplyBacklogMs 1 to 3600000", () -> new TransportLimits(256, 5_000, 5, 5, 64, 1 << 20,
            TransportLimits.MAX_WAIT_MS + 1, 1 << 22));
        new TransportLimits(256, TransportLimits.MAX_WAIT_MS, 5, 5, 64, 1 << 20, TransportLimits.MAX_WAIT_MS, 1 << 22);
    }

    @Test
    void emptyTokenIsRefused()
    {
        assertRejected("token", () -> new SessionConfig(1, "", 10));
    }

    @Test
    void tokenLongerThanALogonCarriesIsRefused()
    {
        final GatewayConfig config = new GatewayConfig(List.of(new SessionConfig(1, "x".repeat(2_000), 10)),
            INSTRUMENTS, new long[]{ 0, 500 }, LIMITS, 10, 10, 10);
        assertRejected("token is longer", () -> new Gateway(config, new RecordingGatewayOutput()));
    }
}
