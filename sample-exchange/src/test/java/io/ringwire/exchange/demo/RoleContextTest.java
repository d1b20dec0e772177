package io.ringwire.exchange.demo;

import io.ringwire.exchange.config.RoleConfig;
import io.ringwire.exchange.config.RoleFiles;
import io.ringwire.exchange.node.ExchangeLayout;
import io.ringwire.messaging.MessagingContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A role's messaging takes its cores and liveness timeout from its file where the file gives them,
 * and keeps messaging's own settings (the {@code -D} properties of {@code RINGWIRE_JAVA_OPTS})
 * where the file leaves them out.
 */
class RoleContextTest
{
    private static final String LIVENESS = MessagingContext.LIVENESS_TIMEOUT_PROP;
    private static final String CORES = MessagingContext.CORES_PROP;

    @TempDir
    Path directory;

    private final String livenessBefore = System.getProperty(LIVENESS);
    private final String coresBefore = System.getProperty(CORES);

    @AfterEach
    void restoreProperties()
    {
        restore(LIVENESS, livenessBefore);
        restore(CORES, coresBefore);
    }

    private static void restore(final String name, final String value)
    {
        if (null == value)
        {
            System.clearProperty(name);
        }
        else
        {
            System.setProperty(name, value);
        }
    }

    @Test
    void aRolesJvmTakesThisJvmsOptionsButAgentsAndTheCoresEachRolesFileGives()
    {
        assertEquals(List.of("-Xmx1g", "-Dringwire.messaging.liveness.timeout.ms=5000"),
            RoleProcess.inherited(List.of("-Xmx1g", "-agentlib:jdwp=transport=dt_socket", "-D" + CORES + "=2",
                "-Dringwire.messaging.liveness.timeout.ms=5000")));
    }

    @Test
    void settingsTheFileLeavesOutKeepTheRolesPropertiesAndThoseItGivesWin() throws Exception
    {
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "pins to core 1 of two");
        final Path engine = engineFile();
        final String text = Files.readString(engine);
        final String without = text.lines().filter(line -> !line.startsWith("liveness-timeout-ms") &&
            !line.startsWith("cores")).collect(Collectors.joining("\n", "", "\n"));
        Files.writeString(engine, without);
        System.setProperty(LIVENESS, "5000");
        System.setProperty(CORES, "1");

        final RoleConfig leftOut = RoleConfig.read(engine);
        assertNull(leftOut.cores(), "no cores line: unset");
        assertEquals(0, leftOut.livenessTimeoutMs(), "no liveness line: unset");
        final MessagingContext fromProperties = RoleMain.context(leftOut);
        assertEquals(Duration.ofSeconds(5).toNanos(), fromProperties.livenessTimeoutNs());
        assertArrayEquals(new int[] { 1 }, fromProperties.cores());

        Files.writeString(engine, without + "liveness-timeout-ms = 3000\ncores = 0\n");
        final MessagingContext fromFile = RoleMain.context(RoleConfig.read(engine));
        assertEquals(Duration.ofSeconds(3).toNanos(), fromFile.livenessTimeoutNs(), "the file's value");
        assertArrayEquals(new int[] { 0 }, fromFile.cores(), "the file's cores");
    }

    private Path engineFile() throws Exception
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 2, 1);
        final RoleFiles.Run run = ExchangeDemo.roleFiles(2, 2, 1_000, 1, directory.resolve("journal"), directory, "", 0);
        RoleFiles.writeCore(directory, layout, run);
        return directory.resolve("engine.conf");
    }
}
