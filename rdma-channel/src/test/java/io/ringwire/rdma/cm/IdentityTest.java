package io.ringwire.rdma.cm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Identities and their key files: what a name may be, derivation from a shared secret, files that
 * round-trip, and an identity file others could read refused.
 */
class IdentityTest
{
    @TempDir
    Path directory;

    @Test
    void aDerivedIdentityIsTheSameForEveryHolderOfTheSecretAndDiffersByNameAndSecret()
    {
        final byte[] secret = "zone-secret".getBytes(StandardCharsets.UTF_8);
        assertEquals(Identity.derive("shared", secret).peerKey(), Identity.derive("shared", secret.clone()).peerKey());
        assertNotEquals(Identity.derive("shared", secret).peerKey().encoded().length, 0);
        assertFalse(java.util.Arrays.equals(Identity.derive("shared", secret).peerKey().encoded(),
            Identity.derive("other", secret).peerKey().encoded()));
        assertFalse(java.util.Arrays.equals(Identity.derive("shared", secret).peerKey().encoded(),
            Identity.derive("shared", "zone-secreT".getBytes(StandardCharsets.UTF_8)).peerKey().encoded()));
    }

    @Test
    void namesFollowTheRuleAndARefusalSaysIt()
    {
        Identity.checkName("member-1001");
        Identity.checkName("md@host-2.example");
        for (final String bad : List.of("", "-lead", "has space", "slash/name", "x".repeat(65)))
        {
            final IllegalArgumentException refusal = assertThrows(IllegalArgumentException.class,
                () -> Identity.checkName(bad));
            assertTrue(refusal.getMessage().contains(Identity.NAME_RULE), refusal.getMessage());
        }
    }

    @Test
    void keyFilesRoundTripAndTheIdentityFileIsForItsOwnerOnly() throws Exception
    {
        final Identity gateway = Identity.generate("gateway-1");
        final Path keyFile = KeyFiles.write(directory, gateway);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile)));
        assertEquals(gateway, KeyFiles.readIdentity(keyFile));
        assertEquals(gateway.peerKey(), KeyFiles.readPublic(directory.resolve("gateway-1.pub")));
        assertEquals(gateway.peerKey(), KeyFiles.readPublic(keyFile), "an identity file has its public half");
        assertFalse(Files.readString(directory.resolve("gateway-1.pub")).contains("private"));

        Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-r--r--"));
        final IllegalArgumentException refusal = assertThrows(IllegalArgumentException.class,
            () -> KeyFiles.readIdentity(keyFile));
        assertTrue(refusal.getMessage().contains("chmod 600"), refusal.getMessage());
    }

    @Test
    void aDirectoryOfPublicKeysIsReadInNameOrderAndABrokenFileIsNamed() throws Exception
    {
        KeyFiles.write(directory, Identity.generate("member-2"));
        KeyFiles.write(directory, Identity.generate("member-1"));
        assertEquals(List.of("member-1", "member-2"),
            KeyFiles.readTrusted(directory).stream().map(PeerKey::name).toList());

        final Path broken = directory.resolve("broken.pub");
        Files.writeString(broken, "identity=broken\npublic-key=bm90IGEga2V5\n");
        final IllegalArgumentException refusal = assertThrows(IllegalArgumentException.class,
            () -> KeyFiles.readPublic(broken));
        assertTrue(refusal.getMessage().startsWith(broken.toString()), refusal.getMessage());
    }

    @Test
    void aConfigurationReadsItsIdentityAndTrustFromKeyFiles()
    {
        final Identity engine = Identity.generate("engine-1");
        final Path keyFile = KeyFiles.write(directory.resolve("engine"), engine);
        KeyFiles.write(directory.resolve("trusted"), Identity.generate("gateway-1"));
        final String saved = System.setProperty(ConnectionManagerConfig.IDENTITY_FILE_PROP, keyFile.toString());
        System.setProperty(ConnectionManagerConfig.TRUST_PROP, directory.resolve("trusted").toString());
        try
        {
            final ConnectionManagerConfig config = new ConnectionManagerConfig().conclude();
            assertEquals(engine, config.identity());
            assertEquals(List.of("gateway-1"), List.copyOf(config.trusted().keySet()));
        }
        finally
        {
            System.clearProperty(ConnectionManagerConfig.IDENTITY_FILE_PROP);
            System.clearProperty(ConnectionManagerConfig.TRUST_PROP);
            assertEquals(null, saved);
        }
    }

    @Test
    void oneKeyTrustedUnderTwoNamesIsRefused()
    {
        final Identity engine = Identity.generate("engine-1");
        final PeerKey asMember = new PeerKey("member-101", engine.peerKey().publicKey());
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> new ConnectionManagerConfig().identity(Identity.generate("gateway-1"))
                .trust(List.of(engine.peerKey(), asMember)));
        assertTrue(refused.getMessage().contains("'engine-1' and 'member-101' have the same key"), refused.getMessage());
        new ConnectionManagerConfig().trust(List.of(engine.peerKey(), engine.peerKey())); // one key, one name, twice

        // The same, from trust files: a copy of the engine's public key dropped in under a member's name.
        final Path keyFile = KeyFiles.write(directory.resolve("gateway"), Identity.generate("gateway-1"));
        KeyFiles.writePublic(directory.resolve("ours"), engine.peerKey());
        KeyFiles.writePublic(directory.resolve("ours"), asMember);
        final String saved = System.setProperty(ConnectionManagerConfig.IDENTITY_FILE_PROP, keyFile.toString());
        try
        {
            System.setProperty(ConnectionManagerConfig.TRUST_PROP, directory.resolve("ours").toString());
            final IllegalArgumentException fromFiles = assertThrows(IllegalArgumentException.class,
                () -> new ConnectionManagerConfig().conclude());
            assertTrue(fromFiles.getMessage().contains("have the same key") &&
                fromFiles.getMessage().contains(ConnectionManagerConfig.TRUST_PROP), fromFiles.getMessage());
        }
        finally
        {
            System.clearProperty(ConnectionManagerConfig.IDENTITY_FILE_PROP);
            System.clearProperty(ConnectionManagerConfig.TRUST_PROP);
            assertEquals(null, saved);
        }
    }

    @Test
    void twoTrustedKeyFilesThatGiveOneNameTwoKeysAreRefusedNotTheLastTaken()
    {
        final Identity engine = Identity.generate("engine-1");
        final Path keyFile = KeyFiles.write(directory.resolve("engine"), engine);
        final Identity genuine = Identity.generate("gateway-1");
        final Identity impostor = Identity.generate("gateway-1");
        KeyFiles.writePublic(directory.resolve("ours"), genuine.peerKey());
        KeyFiles.writePublic(directory.resolve("dropped-in"), impostor.peerKey());
        KeyFiles.writePublic(directory.resolve("again"), genuine.peerKey());
        final String saved = System.setProperty(ConnectionManagerConfig.IDENTITY_FILE_PROP, keyFile.toString());
        try
        {
            System.setProperty(ConnectionManagerConfig.TRUST_PROP, directory.resolve("ours") + "," +
                directory.resolve("dropped-in"));
            final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> new ConnectionManagerConfig().conclude());
            assertTrue(refused.getMessage().contains("two different keys are named 'gateway-1'"), refused.getMessage());

            // The same key twice is one key.
            System.setProperty(ConnectionManagerConfig.TRUST_PROP, directory.resolve("ours") + "," +
                directory.resolve("again"));
            assertEquals(genuine.peerKey(), new ConnectionManagerConfig().conclude().trusted().get("gateway-1"));
        }
        finally
        {
            System.clearProperty(ConnectionManagerConfig.IDENTITY_FILE_PROP);
            System.clearProperty(ConnectionManagerConfig.TRUST_PROP);
            assertEquals(null, saved);
        }
    }

    @Test
    void keygenWritesBothFilesPerNameAndRefusesABadName() throws Exception
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(0, KeyTool.run(new String[]{ "--dir", directory.toString(), "engine-1", "member-7" },
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(Files.exists(directory.resolve("engine-1.key")) && Files.exists(directory.resolve("member-7.pub")));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("fingerprint"), out.toString(StandardCharsets.UTF_8));
        assertEquals(2, KeyTool.run(new String[]{ "bad name" }, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("not allowed"), err.toString(StandardCharsets.UTF_8));
        final String engineKey = Files.readString(directory.resolve("engine-1.key"));
        assertEquals(1, KeyTool.run(new String[]{ "--dir", directory.toString(), "other", "engine-1" },
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("engine-1.key exists already"),
            err.toString(StandardCharsets.UTF_8));
        assertEquals(engineKey, Files.readString(directory.resolve("engine-1.key")), "the identity is kept");
        assertFalse(Files.exists(directory.resolve("other.key")), "nothing is written when one name is refused");
        Files.copy(directory.resolve("member-7.pub"), directory.resolve("peer.pub")); // a peer's key, trusted here
        assertEquals(1, KeyTool.run(new String[]{ "--dir", directory.toString(), "peer" },
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertFalse(Files.exists(directory.resolve("peer.key")), "a trusted peer's key is not replaced");
        assertEquals(2, KeyTool.run(new String[]{ "--dir", directory.resolve("a").toString(), "--dir",
            directory.toString(), "third" }, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--dir is given twice"));
        assertFalse(Files.exists(directory.resolve("third.key")), "a repeated option writes nothing");
        assertEquals(2, KeyTool.run(new String[]{ "--dir", directory.toString(), "twin", "twin" },
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("'twin' is named twice"),
            err.toString(StandardCharsets.UTF_8));
        assertFalse(Files.exists(directory.resolve("twin.key")), "nothing is written");
    }
}
