package io.ringwire.exchange.config;

import io.ringwire.exchange.node.EngineThreads;
import io.ringwire.rdma.host.OnlineCpus;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine's config file says which of its work leaves its thread ({@code engine-threads}): by
 * default what the host's CPUs allow, else exactly what it names; a word it does not know is
 * refused naming the key, and so is the key in another role's file.
 */
class EngineThreadsConfigTest
{
    @TempDir
    Path directory;

    private String engineText;
    private String gatewayText;

    @BeforeEach
    void write() throws Exception
    {
        DemoRoleFiles.write(directory, 2);
        engineText = Files.readString(directory.resolve("engine.conf"));
        gatewayText = Files.readString(directory.resolve("gateway.conf"));
    }

    private RoleConfig read(final String name, final String contents) throws Exception
    {
        final Path file = directory.resolve(name);
        Files.writeString(file, contents);
        return RoleConfig.read(file);
    }

    @Test
    void theEngineTakesWhatItsCpusAllowUnlessTheFileNamesItsThreads() throws Exception
    {
        final EngineThreads byCpus = EngineThreads.forCpus(OnlineCpus.count());
        assertEquals(byCpus, read("engine.conf", engineText).engineThreads());
        assertEquals(byCpus, read("engine.conf", engineText + "engine-threads = auto\n").engineThreads());
        assertEquals(EngineThreads.NONE, read("engine.conf", engineText + "engine-threads = none\n")
            .engineThreads());
        assertEquals(new EngineThreads(true, false, true),
            read("engine.conf", engineText + "engine-threads = journaller, replica\n").engineThreads());
        assertEquals(EngineThreads.ALL,
            read("engine.conf", engineText + "engine-threads = replica,digest,journaller\n").engineThreads());
    }

    @Test
    void aWordItDoesNotKnowOrTheKeyInAnotherRolesFileIsRefused()
    {
        final Exception typo = assertThrows(IllegalArgumentException.class,
            () -> read("engine.conf", engineText + "engine-threads = journaler\n"));
        assertTrue(typo.getMessage().contains("engine-threads") && typo.getMessage().contains("journaler"),
            typo.getMessage());
        final Exception digestAlone = assertThrows(IllegalArgumentException.class,
            () -> read("engine.conf", engineText + "engine-threads = digest\n"));
        assertTrue(digestAlone.getMessage().contains("needs the replica"), digestAlone.getMessage());
        final Exception elsewhere = assertThrows(IllegalArgumentException.class,
            () -> read("gateway.conf", gatewayText + "engine-threads = none\n"));
        assertTrue(elsewhere.getMessage().contains("engine-threads"), elsewhere.getMessage());
    }

    @Test
    void bandsThatTogetherNeedMorePriceSlotsThanTheBooksHaveAreRefusedNamingTheKey()
    {
        final String wide = engineText.replaceAll("(?m)^instruments = .*$", "instruments = 1000")
            .replaceAll("(?m)^price.min = .*$", "price.min = 1").replaceAll("(?m)^price.max = .*$", "price.max = 1000000");
        final Exception refused = assertThrows(IllegalArgumentException.class, () -> read("engine.conf", wide));
        assertTrue(refused.getMessage().contains("engine.conf") && refused.getMessage().contains("price.max") &&
            refused.getMessage().contains("1000 instruments"), refused.getMessage());
    }

    @Test
    void eightCpusPutTheJournallerAheadOfTheEngineAndTwoKeepEverythingOnIt()
    {
        assertEquals(EngineThreads.NONE, EngineThreads.forCpus(2));
        assertEquals(EngineThreads.NONE, EngineThreads.forCpus(3),
            "the digest leaves the engine's thread only with the snapshots, on four");
        assertEquals(new EngineThreads(false, true, true), EngineThreads.forCpus(4));
        assertEquals(new EngineThreads(false, true, true), EngineThreads.forCpus(7));
        assertEquals(EngineThreads.ALL, EngineThreads.forCpus(8));
    }
}
