package io.ringwire.exchange.config;

import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.exchange.node.ExchangeLayout;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The core roles' files of a small demo run (two instruments, 1,000 orders a second over shm),
 * written for the config tests to read back and edit.
 */
final class DemoRoleFiles
{
    private DemoRoleFiles()
    {
    }

    /**
     * @param directory where the files go (the journal and shm files of the run too).
     * @param members   client sessions.
     * @return the run's layout.
     */
    static ExchangeLayout write(final Path directory, final int members) throws IOException
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", members, 0);
        RoleFiles.writeCore(directory, layout, ExchangeDemo.roleFiles(2, members, 1_000, 1, directory.resolve("journal"),
            directory, "", 0));
        return layout;
    }
}
