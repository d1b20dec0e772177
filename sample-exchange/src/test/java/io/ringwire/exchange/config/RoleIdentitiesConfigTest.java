package io.ringwire.exchange.config;

import io.ringwire.exchange.book.OrderStore;
import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.exchange.node.ExchangeLayout;
import io.ringwire.rdma.cm.KeyFiles;
import io.ringwire.rdma.cm.PeerKey;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A role's file is refused, naming the key, when it would give the role another role's identity
 * (the engine's key on the gateway's host lets that process speak for the engine), a member an
 * identity with a core role's name, a book capacity the order store cannot hold, or a setting
 * the role does not use (another role's endpoint among them).
 */
class RoleIdentitiesConfigTest
{
    @TempDir
    Path directory;

    private String engineText;
    private String gatewayText;
    private String clientsText;

    @BeforeEach
    void write() throws Exception
    {
        final ExchangeLayout layout = DemoRoleFiles.write(directory, 2);
        RoleFiles.writeClients(directory.resolve("clients.conf"), layout,
            ExchangeDemo.roleFiles(2, 2, 1_000, 1, directory.resolve("journal"), directory, "", 0), 0, 1, -1, 0);
        engineText = Files.readString(directory.resolve("engine.conf"));
        gatewayText = Files.readString(directory.resolve("gateway.conf"));
        clientsText = Files.readString(directory.resolve("clients.conf"));
    }

    private RoleConfig read(final String name, final String contents) throws Exception
    {
        final Path file = directory.resolve(name);
        Files.writeString(file, contents);
        return RoleConfig.read(file);
    }

    private void assertRefused(final String name, final String contents, final String... words)
    {
        final Exception refused = assertThrows(IllegalArgumentException.class, () -> read(name, contents));
        for (final String word : words)
        {
            assertTrue(refused.getMessage().contains(word), word + " in: " + refused.getMessage());
        }
    }

    @Test
    void anEndpointOnPortZeroIsRefusedWithItsLine()
    {
        final String requests = engineText.lines().filter(line -> line.startsWith("endpoint.requests")).findFirst()
            .orElseThrow();
        assertRefused("engine.conf", engineText.replace(requests, "endpoint.requests = 127.0.0.1:0"),
            "engine.conf", "endpoint.requests", "port 0");
        final String replies = gatewayText.lines().filter(line -> line.startsWith("session.")).findFirst()
            .orElseThrow();
        assertRefused("gateway.conf", gatewayText.replace(replies, replies.replaceAll(":[0-9]+", ":0")),
            "gateway.conf", "port 0");
    }

    @Test
    void theWrittenFilesAreAccepted() throws Exception
    {
        assertEquals("engine", read("engine.conf", engineText).identities().getFirst().name());
        assertEquals("gateway", read("gateway.conf", gatewayText).identities().getFirst().name());
        assertEquals(1, read("clients.conf", clientsText).identities().size());
    }

    @Test
    void aCoreRoleGivenAnotherRolesKeyOrASecondKeyIsRefused()
    {
        assertRefused("gateway.conf", gatewayText.replace("identity = keys/gateway.key",
            "identity = keys/gateway.key, keys/engine.key"), "identity", "gateway", "engine");
        assertRefused("gateway.conf", gatewayText.replace("identity = keys/gateway.key", "identity = keys/engine.key"),
            "identity", "proves one identity");
    }

    @Test
    void aTrustedKeyFileThatGivesAnotherRolesKeyAMembersNameIsRefused()
    {
        final PeerKey engine = KeyFiles.readPublic(directory.resolve("keys/engine.pub"));
        final Path copy = KeyFiles.writePublic(directory.resolve("dropped-in"),
            new PeerKey("member-999", engine.publicKey()));
        final String trust = gatewayText.lines().filter(l -> l.startsWith("trust")).findFirst().orElseThrow();
        assertRefused("gateway.conf", gatewayText.replace(trust, trust + ", " + copy), "trust",
            "'engine' and 'member-999' have the same key");
    }

    @Test
    void aClientsProcessGivenACoreRolesKeyIsRefused()
    {
        final String line = clientsText.lines().filter(l -> l.startsWith("identity")).findFirst().orElseThrow();
        assertRefused("clients.conf", clientsText.replace(line, line + ", keys/gateway.key"), "identity",
            "'gateway' is neither");
    }

    @Test
    void aMemberWithACoreRolesNameIsRefused()
    {
        final String session = gatewayText.lines().filter(l -> l.startsWith("session.")).findFirst().orElseThrow();
        final String member = session.substring(session.indexOf("identity ") + 9, session.indexOf(','));
        assertRefused("gateway.conf", gatewayText.replace(session, session.replace("identity " + member,
            "identity engine")), "session.", "core role's name");
    }

    @Test
    void aBookCapacityPastTheOrderStoresIsRefusedNamingTheKey()
    {
        assertRefused("engine.conf", engineText + "max-orders = " + (OrderStore.MAX_CAPACITY + 1) + "\n",
            "max-orders", "engine.conf");
    }

    @Test
    void aClientsSettingInACoreRolesFileIsRefused()
    {
        assertRefused("engine.conf", engineText + "rate = 5000\n", "'rate' is not a key of the engine role");
        // The clients and market data back off unpinned: cores would be ignored there.
        assertRefused("clients.conf", clientsText + "cores = 1\n", "'cores' is not a key of the clients role");
    }

    @Test
    void anotherRolesEndpointInARolesFileIsRefused()
    {
        final String feed = engineText.lines().filter(l -> l.startsWith("endpoint.feed")).findFirst().orElseThrow();
        assertRefused("gateway.conf", gatewayText + feed + "\n", "'endpoint.feed' is not a key of the gateway role");
        final String requests = engineText.lines().filter(l -> l.startsWith("endpoint.requests")).findFirst()
            .orElseThrow();
        assertRefused("clients.conf", clientsText + requests + "\n",
            "'endpoint.requests' is not a key of the clients role");
    }

    @Test
    void aFieldNamedTwiceOnALineOrASubscriberIndexWrittenTwoWaysIsRefused() throws Exception
    {
        final String session = gatewayText.lines().filter(l -> l.startsWith("session.")).findFirst().orElseThrow();
        assertRefused("gateway.conf", gatewayText.replace(session, session + ", identity someone-else"),
            session.substring(0, session.indexOf(' ')), "names 'identity' twice");

        final String marketData = Files.readString(directory.resolve("marketdata.conf"));
        assertRefused("marketdata.conf", marketData + "subscriber.0 = identity md-a, endpoint 127.0.0.1:9100\n" +
            "subscriber.00 = identity md-b, endpoint 127.0.0.1:9101\n", "subscriber.00", "is subscriber 0 again");
    }
}
