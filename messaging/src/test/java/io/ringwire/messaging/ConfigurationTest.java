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
        assertRefused(() -> ChannelUri.parse("ringwire:socket?endpoint=10.0.0.1:40123,10.0.0.1:40123"),
            "endpoint 10.0.0.1:40123 is listed twice");
        assertRefused(() -> ChannelUri.parse("ringwire:socket?endpoint=localhost"), "must be host:port");
        assertRefused(() -> ChannelUri.parse("ringwire:socket?endpoint=localhost:99999"), "out of range");
        assertRefused(() -> ChannelUri.parse("ringwire:socket?endpoint=a:1|mtu=9000"), "unknown parameter 'mtu'");
        assertRefused(() -> ChannelUri.parse("ringwire:socket?endpoint=a:1|ring=5000"), "power of two");
        assertRefused(() -> ChannelUri.parse("ringwire:socket?endpoint=a:1|interface=10.0.0.1:99999"), "interface",
            "out of range");
        assertRefused(() -> ChannelUri.parse("ringwire:socket?endpoint=a:1|interface="), "interface");
        assertRefused(() -> ChannelUri.parse("ringwire:socket?endpoint=a:1|ring=65536|ring=4096"),
            "parameter 'ring' is given twice");
        assertRefused(() -> ChannelUri.parse("ringwire:socket?endpoint=a:1|"), "'' is not key=value");
        assertRefused(() -> ChannelUri.parse("ringwire:socket?endpoint=a:1|slow-timeout=0"), "slow-timeout",
            "1 to 3600000");
        assertRefused(() -> ChannelUri.parse("ringwire:socket?endpoint=a:1|slow-timeout=soon"), "slow-timeout");
        assertEquals(250, ChannelUri.parse("ringwire:socket?endpoint=a:1|slow-timeout=250").slowTimeoutMs());
        assertEquals(0, ChannelUri.parse("ringwire:socket?endpoint=a:1").slowTimeoutMs(), "absent: waits for every one");
        assertRefused(() -> ChannelUri.parse("ringwire:socket?endpoint=a:1|max-publications=0"), "max-publications",
            "1 to 4096");
        assertEquals(68, ChannelUri.parse("ringwire:socket?endpoint=a:1|max-publications=68").maxPublications(32));
        assertEquals(32, ChannelUri.parse("ringwire:socket?endpoint=a:1").maxPublications(32), "absent: the context's");
    }

    @Test
    void aPublicationToPortZeroIsRefusedAtOpenNotRetriedForEver()
    {
        final MessagingContext context = new MessagingContext().secret("s").conclude();
        assertRefused(() -> Publication.open(context, "ringwire:socket?endpoint=127.0.0.1:40123,127.0.0.1:0", 1),
            "127.0.0.1:0", "names no subscriber");
    }

    @Test
    void badContextValuesAreRefusedNamingTheProperty()
    {
        assertRefused(() -> new MessagingContext().conclude(), MessagingContext.SECRET_PROP);
        assertRefused(() -> new MessagingContext().secret("s").ringCapacity(1000).conclude(),
            MessagingContext.RING_CAPACITY_PROP);
        assertRefused(() -> new MessagingContext().secret("s").heartbeatIntervalMs(500).livenessTimeoutMs(600).conclude(),
            MessagingContext.LIVENESS_TIMEOUT_PROP, MessagingContext.HEARTBEAT_INTERVAL_PROP);
        assertRefused(() -> new MessagingContext().secret("s").creditFraction(2).conclude(),
            MessagingContext.CREDIT_FRACTION_PROP, "3 to 64");
        assertRefused(() -> new MessagingContext().secret("s").countersDirectory(" ").conclude(),
            MessagingContext.COUNTERS_DIR_PROP, "blank");
        assertEquals("busy", new MessagingContext().secret("s").idleStrategy(" busy ").conclude().idleStrategy(),
            "kept as checked: the agents tell a spinning strategy by its name");
    }

    @Test
    void everyRingwirePropertySetsItsValueAndSettersOverrideIt()
    {
        final java.util.Map<String, String> properties = java.util.Map.of(
            MessagingContext.RING_CAPACITY_PROP, "65536",
            MessagingContext.CREDIT_FRACTION_PROP, "8",
            MessagingContext.HEARTBEAT_INTERVAL_PROP, "30",
            MessagingContext.LIVENESS_TIMEOUT_PROP, "900",
            MessagingContext.RECONNECT_INTERVAL_PROP, "70",
            MessagingContext.SECRET_PROP, "from-a-property",
            MessagingContext.COUNTERS_DIR_PROP, "/tmp/ringwire-test-counters",
            MessagingContext.SIGNAL_INTERVAL_PROP, "32",
            MessagingContext.MAX_PUBLICATIONS_PROP, "5",
            MessagingContext.IDLE_PROP, "yield");
        properties.forEach(System::setProperty);
        final MessagingContext context;
        final MessagingContext overridden;
        try
        {
            context = new MessagingContext().conclude();
            overridden = new MessagingContext().ringCapacity(8192).livenessTimeoutMs(5000).conclude();
        }
        finally
        {
            properties.keySet().forEach(System::clearProperty);
        }
        assertEquals(65536, context.ringCapacity());
        assertEquals(8, context.creditFraction());
        assertEquals(30_000_000L, context.heartbeatIntervalNs());
        assertEquals(900_000_000L, context.livenessTimeoutNs());
        assertEquals(70_000_000L, context.reconnectIntervalNs());
        assertEquals(java.nio.file.Path.of("/tmp/ringwire-test-counters"), context.countersDirectory());
        assertEquals(32, context.signalInterval());
        assertEquals(5, context.maxPublicationsPerSubscription());
        assertEquals("yield", context.idleStrategy());
        assertEquals(8192, overridden.ringCapacity());
        assertEquals(5_000_000_000L, overridden.livenessTimeoutNs());
        assertEquals(8, overridden.creditFraction(), "what the setters leave comes from the properties");
        final MessagingContext defaults = new MessagingContext().secret("s").conclude();
        assertEquals(1 << 20, defaults.ringCapacity());
        assertEquals(2_000_000_000L, defaults.livenessTimeoutNs());
        assertEquals("busy", defaults.idleStrategy());
        assertEquals(0, defaults.cores().length);
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
