package io.ringwire.exchange.node;

import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import io.ringwire.rdma.cm.Identity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The market-data fan-out through real messaging: at each subscriber's endpoint the service takes
 * only that subscriber's identity, so one subscriber's key holder listening at another's endpoint
 * is refused there rather than taken for it.
 *
 * <p>Thread layout: the test's thread drives every end.
 */
class MarketDataFanOutKeysTest
{
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int LIVENESS_MS = 2_000;

    @TempDir
    Path directory;

    @Test
    void oneSubscribersKeyAtAnothersEndpointIsRefusedThereAndTheRightfulOneStillConnects()
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 1, 2);
        final Map<String, Identity> identities = new HashMap<>();
        for (final String name : layout.identities())
        {
            identities.put(name, Identity.generate(name));
        }
        final String md0 = layout.marketDataSubscribers().get(0);
        final String md1 = layout.marketDataSubscribers().get(1);
        final MessagingContext service = RoleContexts.context(directory, identities,
            List.of(ExchangeLayout.MARKET_DATA), layout.marketDataSubscribers(), LIVENESS_MS, 0);
        final MessagingContext holderOfMd1 = RoleContexts.context(directory, identities, List.of(md1),
            List.of(ExchangeLayout.MARKET_DATA), LIVENESS_MS, 0);
        // md-1's key holder listens at md-0's endpoint as well as at its own.
        final String atMd0 = layout.marketDataClientSubscription(0).replace("identity=" + md0, "identity=" + md1);
        try (Subscription impostor = Subscription.open(holderOfMd1, atMd0, ExchangeLayout.MARKET_DATA_STREAM);
             Subscription rightful = Subscription.open(holderOfMd1, layout.marketDataClientSubscription(1),
                 ExchangeLayout.MARKET_DATA_STREAM);
             Publication fanOut = Publication.open(service, layout.marketDataPublication(),
                 ExchangeLayout.MARKET_DATA_STREAM))
        {
            RoleContexts.await(() -> rightful.imageCount() == 1 && null != fanOut.lastConnectionError(), WAIT,
                "md-1's own endpoint connected and md-0's refused", () ->
                {
                    impostor.poll((buffer, offset, length, header) -> { }, 10);
                    rightful.poll((buffer, offset, length, header) -> { }, 10);
                    fanOut.doWork();
                });
            assertTrue(fanOut.lastConnectionError().contains("UNKNOWN_IDENTITY"), fanOut.lastConnectionError());
            assertEquals(0, impostor.imageCount());
            assertEquals(ExchangeLayout.MARKET_DATA, rightful.imageIdentity(fanOut.sessionId()));
            assertTrue(fanOut.isConnected());
        }
    }
}
