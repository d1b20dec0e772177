package io.ringwire.messaging;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad configuration fails at once with a message naming what to change and what is allowed.
 */
class ConfigurationTest
{
    private static void assertRefused(final Runnable action, final String... fragments)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, action::run);
        for (final String fragment : fragments)
        {
            assertTrue(ex.getMessage().contains(fragment), ex.getMessage() + " should mention " + fragment);
        }
    }

    @Test
    void channelsAreParsedWithEveryEndpointAndParameter()
    {
        final ChannelUri channel = ChannelUri.parse("ringwire:roce?endpoint=10.0.0.1:40123,10.0.0.2:40124|ring=65536");
        assertEquals("roce", channel.provider());
        assertEquals(2, channel.endpoints().size());
        assertEquals(40124, channel.endpoints().get(1).getPort());
        assertEquals("65536", channel.get("ring"));
    }

    @Test
    void badChannelsAreRefusedWithTheReason()
    {
        assertRefused(() -> ChannelUri.parse("aeron:udp?endpoint=a:1"), "must start with 'ringwire:'");
        assertRefused(() -> ChannelUri.parse("ringwire:tcp?endpoint=a:1"), "unknown provider 'tcp'", "socket");
        assertRefused(() -> ChannelUri.parse("ringwire:socket"), "needs endpoint=host:port");
        assertRefused(() -> ChannelUri.parse("ringwire:socket?endpoint=localhost"), "must be host:port");
        assertRefused(() -> ChannelUri.parse("ringwire:socket?endpoint=localhost:99999"), "out of range");
        assertRefused(() -> ChannelUri.parse("ringwire:socket?endpoint=a:1|mtu=9000"), "unknown parameter 'mtu'");
        assertRefused(() -> ChannelUri.parse("ringwire:socket?endpoint=a:1|ring=5000"), "power of two");
    }

    @Test
    void badContextValuesAreRefusedNamingTheProperty()
    {
        assertRefused(() -> new MessagingContext().conclude(), MessagingContext.SECRET_PROP);
        assertRefused(() -> new MessagingContext().secret("s").ringCapacity(1000).conclude(),
            MessagingContext.RING_CAPACITY_PROP);
        assertRefused(() -> new MessagingContext().secret("s").heartbeatIntervalMs(500).livenessTimeoutMs(600).conclude(),
            MessagingContext.LIVENESS_TIMEOUT_PROP, MessagingContext.HEARTBEAT_INTERVAL_PROP);
        assertRefused(() -> new MessagingContext().secret("s").creditFraction(1).conclude(),
            MessagingContext.CREDIT_FRACTION_PROP, "2 to 64");
    }

    @Test
    void sessionSetupRoundTripsAndRefusesOtherData()
    {
        final SessionSetup setup = new SessionSetup(7, -123, 1 << 20, 4096);
        assertEquals(setup, SessionSetup.decode(setup.encode()));
        assertRefused(() -> SessionSetup.decode(new byte[3]), "not a RingWire messaging session setup");
    }

    @Test
    void onlineCpuListsAreCounted()
    {
        assertEquals(1, OnlineCpus.parse("0"));
        assertEquals(4, OnlineCpus.parse("0-3"));
        assertEquals(6, OnlineCpus.parse("0-3,6,8"));
        assertTrue(OnlineCpus.count() >= 1);
    }

    @Test
    void unknownIdleStrategiesAreRefused()
    {
        assertRefused(() -> Agents.idleStrategy("nap"), MessagingContext.IDLE_PROP, "busy, yield, backoff, sleep");
    }

    @Test
    void anAgentThreadIsPinnedToItsCore() throws Exception
    {
        final java.util.concurrent.CompletableFuture<Boolean> pinned = new java.util.concurrent.CompletableFuture<>();
        final Thread thread = new Thread(() -> pinned.complete(Agents.pinCurrentThread(0)));
        thread.start();
        thread.join(10_000);
        assertTrue(pinned.get(), "pinning to core 0 takes effect on Linux");
        assertTrue(java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/status")).contains("Cpus_allowed_list"));
    }
}
