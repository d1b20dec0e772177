package io.ringwire.exchange.node;

import io.ringwire.messaging.MessagingContext;
import io.ringwire.rdma.cm.Identity;
import io.ringwire.rdma.cm.PeerKey;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * What the tests that run an exchange's roles in one process share: a messaging context per trust
 * zone (the identities it proves, the public keys it accepts, its shm files and counters in the
 * test's directory), and a wait that drives the roles meanwhile.
 */
final class RoleContexts
{
    private RoleContexts()
    {
    }

    /**
     * @param directory  the test's directory (shm files, counters).
     * @param identities every identity of the run, by name.
     * @param own        the identities this context proves.
     * @param trusted    the identities whose public keys it accepts.
     * @param livenessMs its liveness timeout (and the shm peer timeout).
     * @param ringBytes  its rings' capacity, or 0 for the default.
     * @return the concluded context.
     */
    static MessagingContext context(final Path directory, final Map<String, Identity> identities,
        final List<String> own, final List<String> trusted, final int livenessMs, final int ringBytes)
    {
        final MessagingContext context = new MessagingContext()
            .countersDirectory(directory.resolve("counters").toString())
            .heartbeatIntervalMs(50).livenessTimeoutMs(livenessMs).reconnectIntervalMs(50)
            .rdmaSettings(config -> config.shmDirectory(directory.resolve("shm").toString()).peerTimeoutMs(livenessMs));
        if (ringBytes > 0)
        {
            context.ringCapacity(ringBytes);
        }
        own.forEach(name -> context.identity(identities.get(name)));
        final List<PeerKey> keys = new ArrayList<>();
        trusted.forEach(name -> keys.add(identities.get(name).peerKey()));
        return context.trust(keys).conclude();
    }

    /** Runs {@code duty} until {@code condition} holds, failing after {@code wait}. */
    static void await(final BooleanSupplier condition, final Duration wait, final String what, final Runnable duty)
    {
        final long deadline = System.nanoTime() + wait.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                fail("timed out after " + wait + " waiting for " + what);
            }
            duty.run();
        }
    }
}
