package io.ringwire.rdma.cm;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Configuration defaults, system-property overrides and the messages of invalid values.
 */
final class ConnectionManagerConfigTest
{
    @Test
    void missingIdentityFailsNamingThePropertiesToSet()
    {
        withProperties(Map.of(), () ->
        {
            final IllegalArgumentException failure =
                assertThrows(IllegalArgumentException.class, () -> new ConnectionManagerConfig().conclude());

            assertTrue(failure.getMessage().startsWith("no identity"), failure.getMessage());
            assertTrue(failure.getMessage().contains(ConnectionManagerConfig.IDENTITY_FILE_PROP), failure.getMessage());
            assertTrue(failure.getMessage().contains(ConnectionManagerConfig.SECRET_PROP), failure.getMessage());
        });
    }

    @Test
    void defaultsApplyWhenOnlyTheSecretIsSet()
    {
        withProperties(Map.of(ConnectionManagerConfig.SECRET_PROP, "s3cret"), () ->
        {
            final ConnectionManagerConfig config = new ConnectionManagerConfig().conclude();

            assertEquals(ConnectionManager.PROTOCOL_VERSION, config.protocolVersion());
            assertEquals(Duration.ofMillis(5000), config.timeout());
            assertEquals(64, config.maxPendingHandshakes());
            assertEquals(ConnectionManagerConfig.DEFAULT_CHALLENGES_PER_SOURCE, config.challengesPerSource());
        });
    }

    @Test
    void systemPropertiesOverrideTheDefaults()
    {
        withProperties(Map.of(ConnectionManagerConfig.SECRET_PROP, "s3cret",
            ConnectionManagerConfig.PROTOCOL_VERSION_PROP, "3",
            ConnectionManagerConfig.TIMEOUT_PROP, "250",
            ConnectionManagerConfig.MAX_PENDING_PROP, "7",
            ConnectionManagerConfig.CHALLENGES_PER_SOURCE_PROP, "9"), () ->
        {
            final ConnectionManagerConfig config = new ConnectionManagerConfig().conclude();

            assertEquals(9, config.challengesPerSource());
            assertEquals(3, config.protocolVersion());
            assertEquals(250, config.timeoutMs());
            assertEquals(7, config.maxPendingHandshakes());
        });
    }

    @Test
    void invalidValuesFailNamingThePropertyAndTheAllowedRange()
    {
        final byte[] secret = "s3cret".getBytes(StandardCharsets.UTF_8);
        final IllegalArgumentException timeout = assertThrows(IllegalArgumentException.class, () ->
            new ConnectionManagerConfig().secret(secret).timeoutMs(0).conclude());
        final IllegalArgumentException pending = assertThrows(IllegalArgumentException.class, () ->
            new ConnectionManagerConfig().secret(secret).maxPendingHandshakes(-1).conclude());
        final IllegalArgumentException version = assertThrows(IllegalArgumentException.class, () ->
            new ConnectionManagerConfig().secret(secret).protocolVersion(70_000).conclude());
        final IllegalArgumentException rate = assertThrows(IllegalArgumentException.class, () ->
            new ConnectionManagerConfig().secret(secret).challengesPerSource(0).conclude());

        assertTrue(timeout.getMessage().contains(ConnectionManagerConfig.TIMEOUT_PROP + "='0'"), timeout.getMessage());
        assertTrue(timeout.getMessage().contains("allowed: 1 to 3600000 milliseconds"), timeout.getMessage());
        assertTrue(pending.getMessage().contains(ConnectionManagerConfig.MAX_PENDING_PROP), pending.getMessage());
        assertTrue(version.getMessage().contains("allowed: 1 to 65535"), version.getMessage());
        assertTrue(rate.getMessage().contains(ConnectionManagerConfig.CHALLENGES_PER_SOURCE_PROP + "='0'"),
            rate.getMessage());
    }

    @Test
    void nonNumericPropertyFailsNamingThePropertyAndItsValue()
    {
        withProperties(Map.of(ConnectionManagerConfig.SECRET_PROP, "s3cret",
            ConnectionManagerConfig.TIMEOUT_PROP, "5s"), () ->
        {
            final IllegalArgumentException failure =
                assertThrows(IllegalArgumentException.class, () -> new ConnectionManagerConfig().conclude());

            assertTrue(failure.getMessage().contains(ConnectionManagerConfig.TIMEOUT_PROP + "='5s' is not a number"),
                failure.getMessage());
        });
    }

    @Test
    void concludedConfigurationCannotChangeAndUnconcludedOneCannotBeRead()
    {
        final ConnectionManagerConfig unconcluded = new ConnectionManagerConfig().secret(new byte[] { 1 });
        assertThrows(IllegalStateException.class, unconcluded::timeoutMs);

        final ConnectionManagerConfig concluded = unconcluded.conclude();
        assertThrows(IllegalStateException.class, () -> concluded.timeoutMs(10));
        assertEquals(concluded, concluded.conclude(), "concluding twice is harmless");
    }

    @Test
    void toStringNeverRevealsTheSecret()
    {
        final String text = new ConnectionManagerConfig().secret("hunter2-secret".getBytes(StandardCharsets.UTF_8))
            .conclude().toString();

        assertFalse(text.contains("hunter2"), text);
        assertTrue(text.contains("secret=set"), text);
    }

    /**
     * Runs {@code body} with exactly these {@code ringwire.cm.*} properties set, restoring the previous ones.
     */
    private static void withProperties(final Map<String, String> properties, final Runnable body)
    {
        final String[] names = {
            ConnectionManagerConfig.SECRET_PROP, ConnectionManagerConfig.PROTOCOL_VERSION_PROP,
            ConnectionManagerConfig.TIMEOUT_PROP, ConnectionManagerConfig.MAX_PENDING_PROP,
            ConnectionManagerConfig.CHALLENGES_PER_SOURCE_PROP };
        final String[] saved = new String[names.length];
        for (int i = 0; i < names.length; i++)
        {
            saved[i] = System.getProperty(names[i]);
            System.clearProperty(names[i]);
        }
        try
        {
            properties.forEach(System::setProperty);
            body.run();
        }
        finally
        {
            for (int i = 0; i < names.length; i++)
            {
                if (saved[i] == null)
                {
                    System.clearProperty(names[i]);
                }
                else
                {
                    System.setProperty(names[i], saved[i]);
                }
            }
        }
    }
}
