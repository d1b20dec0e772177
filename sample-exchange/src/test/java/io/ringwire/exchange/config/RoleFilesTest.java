package io.ringwire.exchange.config;

import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.exchange.node.ExchangeLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the writer of a run's files leaves on disk: the sessions' tokens (in the gateway's and the
 * clients' files) readable by their owner alone, as the identity keys are.
 */
class RoleFilesTest
{
    @TempDir
    Path directory;

    @Test
    void everyRoleFileIsReadableByItsOwnerAloneAndTheTokensFilesAmongThem() throws Exception
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 2, 1);
        final RoleFiles.Run run = ExchangeDemo.roleFiles(2, 2, 1_000, 1, directory.resolve("journal"), directory, "", 0);
        RoleFiles.writeCore(directory, layout, run);
        final Path clients = RoleFiles.writeClients(directory.resolve("clients-0.conf"), layout, run, 0, 2, 0, 0);
        // A file written over keeps the mode it is given, whatever mode it had.
        Files.setPosixFilePermissions(clients, PosixFilePermissions.fromString("rw-r--r--"));
        RoleFiles.writeClients(clients, layout, run, 0, 2, 0, 0);

        final List<Path> files;
        try (Stream<Path> listing = Files.list(directory))
        {
            files = listing.filter(file -> file.toString().endsWith(".conf")).toList();
        }
        assertTrue(files.stream().anyMatch(file -> file.getFileName().toString().startsWith("gateway")), files.toString());
        assertTrue(files.contains(clients), files.toString());
        for (final Path file : files)
        {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)), file.toString());
        }
        assertTrue(Files.readString(clients).contains("token"), "the clients' file holds its sessions' tokens");
    }
}
