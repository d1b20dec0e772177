package io.ringwire.exchange.node;

import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import io.ringwire.rdma.cm.Identity;
import io.ringwire.rdma.cm.PeerKey;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The gateway's member endpoint holds every member's connections, more members than a subscription
 * takes by default (32 publications): each member's key, its own publication, all connected at once
 * through real messaging.
 */
class MemberEndpointRoomTest
{
    private static final int MEMBERS = 34;

    @TempDir
    Path directory;

    @Test
    void everyMemberOfALargerExchangeConnectsAtOnce()
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", MEMBERS, 0);
        final List<Identity> identities = new ArrayList<>();
        for (final String name : layout.members())
        {
            identities.add(Identity.generate(name));
        }
        final Identity gatewayIdentity = Identity.generate(ExchangeLayout.GATEWAY);
        final List<PeerKey> memberKeys = identities.stream().map(Identity::peerKey).toList();
        final MessagingContext gatewaySide = context().identity(gatewayIdentity).trust(memberKeys).conclude();
        final MessagingContext membersSide = context();
        identities.forEach(membersSide::identity);
        membersSide.trust(List.of(gatewayIdentity.peerKey())).conclude();

        final List<Publication> publications = new ArrayList<>();
        try (Subscription orders = Subscription.open(gatewaySide, layout.gatewayOrdersSubscription(),
            ExchangeLayout.ORDERS_STREAM))
        {
            assertEquals(MEMBERS * ExchangeLayout.MEMBER_CONNECTIONS, orders.maxPublications());
            for (int i = 0; i < MEMBERS; i++)
            {
                publications.add(Publication.open(membersSide, layout.clientOrdersPublication(i),
                    ExchangeLayout.ORDERS_STREAM));
            }
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (orders.imageCount() < MEMBERS || !publications.stream().allMatch(Publication::isConnected))
            {
                if (System.nanoTime() > deadline)
                {
                    fail(orders.imageCount() + " of " + MEMBERS + " members connected; " +
                        publications.stream().filter(p -> !p.isConnected()).findFirst()
                            .map(Publication::lastConnectionError).orElse(""));
                }
                orders.poll((buffer, offset, length, header) -> { }, 16);
                publications.forEach(Publication::doWork);
            }
        }
        finally
        {
            publications.forEach(CloseHelper::quietClose);
        }
    }

    private MessagingContext context()
    {
        return new MessagingContext().countersDirectory(directory.resolve("counters").toString())
            .heartbeatIntervalMs(100).livenessTimeoutMs(10_000).reconnectIntervalMs(50)
            .rdmaSettings(config -> config.shmDirectory(directory.resolve("shm").toString()).peerTimeoutMs(10_000));
    }
}
