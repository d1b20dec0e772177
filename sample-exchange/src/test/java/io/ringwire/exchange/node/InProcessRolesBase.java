package io.ringwire.exchange.node;

import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * What the tests over {@link InProcessRoles} share: a directory of the test's own, and the roles,
 * closed after each test whatever it left running.
 */
abstract class InProcessRolesBase
{
    @TempDir
    Path directory;

    InProcessRoles roles;

    @AfterEach
    void closeRoles()
    {
        CloseHelper.quietClose(roles);
    }

    /** Opens the roles over the test's directory (started by the test), closed after it. */
    void openRoles(final int clientCount, final int instruments, final long rate)
    {
        roles = new InProcessRoles(directory, clientCount, instruments, rate);
    }
}
