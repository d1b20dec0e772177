package io.ringwire.exchange.node;

import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.fix.FixDoor;
import io.ringwire.exchange.gateway.GatewayConfig;
import io.ringwire.exchange.gateway.SessionConfig;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.rdma.cm.Identity;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A gateway with a FIX door gives the door's members transport ids of a block of its own; any
 * publication may name its session id, so a network member naming one of that block is refused
 * when it connects, before any of its bytes could be taken for a FIX member's, and its next
 * publication under an id of its own connects.
 */
class DoorSessionIdsTest
{
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int HOSTILE = 1;

    @TempDir
    Path directory;

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void close()
    {
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(closeables.get(i));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "shm", "socket" })
    void aNetworkMemberNamingAFixMembersTransportIdIsRefusedWhenItConnects(final String provider)
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts(provider, 2, 1);
        final Map<String, Identity> identities = new HashMap<>();
        layout.identities().forEach(name -> identities.put(name, Identity.generate(name)));
        final MessagingContext core = RoleContexts.context(directory, identities, List.of(ExchangeLayout.ENGINE,
            ExchangeLayout.GATEWAY, ExchangeLayout.MARKET_DATA), layout.identities(), 4_000, 0);
        final MessagingContext hostile = RoleContexts.context(directory, identities,
            List.of(layout.members().get(HOSTILE)), layout.identities(), 4_000, 0);
        final EngineConfig engineConfig = ExchangeDemo.engineConfig(2, 2);
        final GatewayConfig config = ExchangeDemo.gatewayConfig(2, 1_000, engineConfig, 0);
        final SessionConfig fixSession = config.sessions().getFirst();
        final FixDoor door = new FixDoor(new InetSocketAddress("127.0.0.1", LoopbackPorts.pick()), "EXCH", null,
            List.of(new FixDoor.Member(0, fixSession, "MEMBER0")), config.maxClientOrderIdsPerSession());
        final GatewayNode gateway = add(new GatewayNode(core, layout, config, new RunFlag(), door));

        final Publication posing = add(Publication.open(hostile, layout.clientOrdersPublication(HOSTILE) +
            "|session-id=" + FixDoor.FIRST_TRANSPORT, ExchangeLayout.ORDERS_STREAM));
        RoleContexts.await(() -> null != posing.lastConnectionError(), WAIT, "the posing publication refused", () ->
        {
            gateway.doWork();
            posing.doWork();
        });
        assertFalse(posing.isConnected());
        assertTrue(posing.lastConnectionError().contains("is reserved here"), posing.lastConnectionError());

        final Publication own = add(Publication.open(hostile, layout.clientOrdersPublication(HOSTILE),
            ExchangeLayout.ORDERS_STREAM));
        RoleContexts.await(own::isConnected, WAIT, "the member's own publication connected", () ->
        {
            gateway.doWork();
            own.doWork();
            posing.doWork();
        });
        assertFalse(posing.isConnected(), "still refused");
    }

    private <T extends AutoCloseable> T add(final T closeable)
    {
        closeables.add(closeable);
        return closeable;
    }
}
