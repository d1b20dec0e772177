package io.ringwire.exchange.config;

import io.ringwire.exchange.node.ExchangeLayout;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gateway's config file places the FIX door: sessions that name a SenderCompID instead of a
 * reply endpoint are the door's, and a file that gets the door half right is refused with the
 * line that is wrong.
 */
class FixDoorConfigTest
{
    @TempDir
    Path directory;

    private ExchangeLayout layout;
    private Path gateway;
    private String text;

    @BeforeEach
    void write() throws Exception
    {
        layout = DemoRoleFiles.write(directory, 3);
        gateway = directory.resolve("gateway.conf");
        text = Files.readString(gateway);
    }

    private RoleConfig read(final String contents) throws Exception
    {
        Files.writeString(gateway, contents);
        return RoleConfig.read(gateway);
    }

    private String fixSession(final int index, final String compId)
    {
        return text.replace("replies " + layout.clientReplies().get(index), "fix " + compId);
    }

    @Test
    void sessionsNamingASenderCompIdAreTheDoorsAndTheOthersKeepTheirReplyEndpoints() throws Exception
    {
        final RoleConfig config = read(fixSession(1, "ACME-1") + "fix-door = 127.0.0.1:9878\nfix-store = store\n");
        assertEquals(1, config.fix().members().size());
        assertEquals("ACME-1", config.fix().members().getFirst().senderCompId());
        assertEquals(1, config.fix().members().getFirst().sessionIndex());
        assertEquals(9878, config.fix().address().getPort());
        assertEquals(RoleConfig.DEFAULT_FIX_COMP_ID, config.fix().compId());
        assertEquals(directory.resolve("store"), config.fix().store());
        assertEquals("", config.layout().clientReplies().get(1), "a FIX session has no reply endpoint");
        assertEquals(layout.clientReplies().get(0), config.layout().clientReplies().get(0));
        assertNull(read(text).fix(), "no FIX session, no door");
    }

    @Test
    void aDoorHalfConfiguredIsRefusedNamingTheLine()
    {
        final Exception noDoor = assertThrows(IllegalArgumentException.class, () -> read(fixSession(0, "ACME")));
        assertTrue(noDoor.getMessage().contains("fix-door"), noDoor.getMessage());
        final Exception noSessions = assertThrows(IllegalArgumentException.class,
            () -> read(text + "fix-door = 127.0.0.1:9878\n"));
        assertTrue(noSessions.getMessage().contains("no session says"), noSessions.getMessage());
        final Exception badCompId = assertThrows(IllegalArgumentException.class,
            () -> read(fixSession(0, "AC ME") + "fix-door = 127.0.0.1:9878\n"));
        assertTrue(badCompId.getMessage().contains("session."), badCompId.getMessage());
        final Exception twice = assertThrows(IllegalArgumentException.class,
            () -> read(fixSession(0, "ACME").replace("replies " + layout.clientReplies().get(1), "fix ACME") +
                "fix-door = 127.0.0.1:9878\n"));
        assertTrue(twice.getMessage().contains("ACME"), twice.getMessage());
    }

    @Test
    void aDoorCompIdThatIsNoCompIdOrIsAMembersIsRefusedNamingTheKey()
    {
        final Exception blank = assertThrows(IllegalArgumentException.class,
            () -> read(fixSession(0, "ACME") + "fix-door = 127.0.0.1:9878\nfix-comp-id = RING WIRE\n"));
        assertTrue(blank.getMessage().contains("fix-comp-id") && blank.getMessage().contains("RING WIRE"),
            blank.getMessage());
        final Exception members = assertThrows(IllegalArgumentException.class,
            () -> read(fixSession(0, "ACME") + "fix-door = 127.0.0.1:9878\nfix-comp-id = ACME\n"));
        assertTrue(members.getMessage().contains("fix-comp-id") && members.getMessage().contains("member"),
            members.getMessage());
        assertEquals("EXCH-1", assertDoesNotThrow(
            () -> read(fixSession(0, "ACME") + "fix-door = 127.0.0.1:9878\nfix-comp-id = EXCH-1\n")).fix().compId());
    }

    @Test
    void aDoorOnTheAddressOfOneOfTheGatewaysEndpointsIsRefusedNamingBothLines() throws Exception
    {
        final String orders = text.lines().filter(line -> line.startsWith(RoleFiles.ORDERS)).findFirst()
            .orElseThrow().split("=", 2)[1].trim();
        final Exception shared = assertThrows(IllegalArgumentException.class,
            () -> read(fixSession(0, "ACME") + "fix-door = " + orders + "\n"));
        assertTrue(shared.getMessage().contains("fix-door") && shared.getMessage().contains(RoleFiles.ORDERS),
            shared.getMessage());
    }

    @Test
    void aSessionIdWrittenWithLeadingZerosIsRefusedNamingItsPlainSpelling()
    {
        final String first = text.lines().filter(line -> line.startsWith(RoleFiles.SESSION_PREFIX)).findFirst()
            .orElseThrow();
        final String id = first.substring(RoleFiles.SESSION_PREFIX.length(), first.indexOf('=')).trim();
        final Exception padded = assertThrows(IllegalArgumentException.class,
            () -> read(text.replace(first, first.replaceFirst(RoleFiles.SESSION_PREFIX + id,
                RoleFiles.SESSION_PREFIX + "0" + id))));
        assertTrue(padded.getMessage().contains(RoleFiles.SESSION_PREFIX + "0" + id) &&
            padded.getMessage().contains("plain digits: " + RoleFiles.SESSION_PREFIX + id), padded.getMessage());
    }
}
