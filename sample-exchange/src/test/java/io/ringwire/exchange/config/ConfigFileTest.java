package io.ringwire.exchange.config;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How a role's config file reads its lines: comments, a {@code #} inside a value, an empty value, a byte-order mark. */
class ConfigFileTest
{
    private static final Path FILE = Path.of("gateway.conf");

    @Test
    void aValueReadsBackUnlessALineBreakEndSpaceOrCommentWouldChangeIt()
    {
        for (final String value : List.of("/tmp/run#1", "a b", "token#x", ""))
        {
            assertTrue(ConfigFile.readsBack(value), value);
        }
        for (final String value : List.of("/tmp/run #1", "#start", " lead", "trail ", "two\nlines", "cr\r"))
        {
            assertFalse(ConfigFile.readsBack(value), value);
        }
    }

    @Test
    void aHashInsideAValueIsPartOfItAndOneAfterASpaceStartsAComment()
    {
        final ConfigFile config = ConfigFile.parse(FILE, List.of(
            "# a whole-line comment",
            "   # an indented one",
            "session.1 = identity member-0, account 1, token s3#cr#t, replies 127.0.0.1:9000",
            "provider = shm # the same host",
            "shm-dir = /dev/shm/ring#1\t# a tab before the comment",
            ""));

        assertEquals("identity member-0, account 1, token s3#cr#t, replies 127.0.0.1:9000",
            config.required("session.1", "a session"));
        assertEquals("shm", config.required("provider", "a provider"));
        assertEquals("/dev/shm/ring#1", config.required("shm-dir", "a directory"));
    }

    @Test
    void aKeyWithNoValueIsRefusedNamingItsLineRatherThanTakenForTheDefault()
    {
        final Exception refused = assertThrows(IllegalArgumentException.class,
            () -> ConfigFile.parse(FILE, List.of("role = gateway", "provider =   # none")));
        assertTrue(refused.getMessage().contains("gateway.conf:2") && refused.getMessage().contains("'provider' has no value"),
            refused.getMessage());
    }

    @Test
    void aByteOrderMarkBeforeTheFirstLineIsNoPartOfItsKey()
    {
        final ConfigFile config = ConfigFile.parse(FILE, List.of("\uFEFFrole = gateway", "provider = shm"));
        assertEquals("gateway", config.required("role", "a role"));
        final ConfigFile commented = ConfigFile.parse(FILE, List.of("\uFEFF# generated", "role = engine"));
        assertEquals("engine", commented.required("role", "a role"));
    }
}
