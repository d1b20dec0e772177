package io.ringwire.messaging;

import io.ringwire.rdma.cm.ConnectionManagerConfig;
import io.ringwire.rdma.cm.Identity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static io.ringwire.messaging.PubSubTestSupport.await;
import static io.ringwire.messaging.PubSubTestSupport.context;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keys per link over real messaging: a subscription takes publications only of the identities its
 * channel accepts, knows which identity each image proved, decides the largest ring it maps and how
 * many publications one identity may hold, and evicts an image on the application's word.
 */
class KeyedChannelsTest
{
    private static final int STREAM = 41;
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Identity ENGINE = Identity.generate("engine");
    private static final Identity GATEWAY = Identity.generate("gateway");
    private static final Identity MEMBER = Identity.generate("member-1");

    @TempDir
    Path directory;

    /** The engine's side: proves engine, trusts the gateway and (for the test's refusals) the member. */
    private MessagingContext engineSide()
    {
        return context(directory, context -> context.identity(ENGINE)
            .trust(List.of(GATEWAY.peerKey(), MEMBER.peerKey())));
    }

    private MessagingContext side(final Identity identity)
    {
        return context(directory, context -> context.identity(identity).trust(List.of(ENGINE.peerKey())));
    }

    private static String channel(final String provider, final int port, final String parameters)
    {
        return "ringwire:" + provider + "?endpoint=127.0.0.1:" + port + parameters;
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aSubscriptionTakesOnlyTheIdentitiesItAcceptsAndKnowsWhichOneEachImageProved(final String provider)
    {
        try (Subscription subscription = Subscription.open(engineSide(), channel(provider, 0, "|accept=gateway"),
            STREAM);
             Publication member = Publication.open(side(MEMBER),
                 channel(provider, subscription.endpoint().getPort(), ""), STREAM);
             Publication gateway = Publication.open(side(GATEWAY),
                 channel(provider, subscription.endpoint().getPort(), ""), STREAM))
        {
            final List<String> identities = new ArrayList<>();
            subscription.availableImageHandler(sessionId -> identities.add(subscription.imageIdentity(sessionId)));
            // The subscriber counts a refusal when it sends it; the member's publication knows it only once
            // the refusal arrived, so both are awaited.
            await(() -> gateway.isConnected() && subscription.imageCount() == 1 && subscription.identitiesRefused() > 0
                    && null != member.lastConnectionError(),
                WAIT,
                "the gateway connected and the member refused", () ->
                {
                    subscription.poll((buffer, offset, length, header) -> { }, 10);
                    gateway.doWork();
                    member.doWork();
                });
            assertFalse(member.isConnected());
            assertTrue(member.lastConnectionError().contains("UNKNOWN_IDENTITY"), member.lastConnectionError());
            assertEquals(List.of("gateway"), identities);
            assertEquals(1, subscription.imageCount());
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void theSubscriberDecidesTheRingAndHowManyPublicationsOneIdentityHolds(final String provider)
    {
        try (Subscription subscription = Subscription.open(engineSide(),
            channel(provider, 0, "|max-ring=65536|max-per-identity=1"), STREAM);
             Publication huge = Publication.open(side(GATEWAY),
                 channel(provider, subscription.endpoint().getPort(), "|ring=131072"), STREAM);
             Publication first = Publication.open(side(GATEWAY),
                 channel(provider, subscription.endpoint().getPort(), "|ring=65536"), STREAM))
        {
            await(() -> first.isConnected() && null != huge.lastConnectionError(), WAIT,
                "the fitting publication connected and the huge one refused", () ->
                {
                    subscription.poll((buffer, offset, length, header) -> { }, 10);
                    first.doWork();
                    huge.doWork();
                });
            assertFalse(huge.isConnected());
            assertTrue(huge.lastConnectionError().contains("above this subscription's largest, 65536"),
                huge.lastConnectionError());
            try (Publication second = Publication.open(side(GATEWAY),
                channel(provider, subscription.endpoint().getPort(), "|ring=65536"), STREAM))
            {
                await(() -> null != second.lastConnectionError(), WAIT, "the gateway's second publication refused",
                    () ->
                    {
                        subscription.poll((buffer, offset, length, header) -> { }, 10);
                        first.doWork();
                        second.doWork();
                    });
                assertTrue(second.lastConnectionError().contains("identity 'gateway' has 1 publications here"),
                    second.lastConnectionError());
                assertFalse(second.isConnected());
            }
            assertTrue(subscription.counters().setupsRefused.get() >= 2);
            assertEquals(1, subscription.imageCount());
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aFanOutTakesAtEachEndpointOnlyTheIdentityNamedForItThere(final String provider)
    {
        // Both subscribers prove gateway, a key the engine trusts; the first listens where member-1 is named.
        try (Subscription impostor = Subscription.open(side(GATEWAY), channel(provider, 0, ""), STREAM);
             Subscription gateway = Subscription.open(side(GATEWAY), channel(provider, 0, ""), STREAM);
             Publication fanOut = Publication.open(engineSide(), "ringwire:" + provider + "?endpoint=127.0.0.1:" +
                 impostor.endpoint().getPort() + ",127.0.0.1:" + gateway.endpoint().getPort() +
                 "|endpoint-peers=member-1,gateway", STREAM))
        {
            await(() -> fanOut.destinations()[1].connected && gateway.imageCount() == 1
                    && null != fanOut.lastConnectionError(), WAIT,
                "the gateway's endpoint connected and the impostor's refused", () ->
                {
                    impostor.poll((buffer, offset, length, header) -> { }, 10);
                    gateway.poll((buffer, offset, length, header) -> { }, 10);
                    fanOut.doWork();
                });
            assertFalse(fanOut.destinations()[0].connected);
            assertTrue(fanOut.lastConnectionError().contains("UNKNOWN_IDENTITY"), fanOut.lastConnectionError());
            assertEquals(0, impostor.imageCount());
            assertEquals(1, gateway.imageCount());
        }
    }

    @Test
    void endpointPeersNameOneTrustedIdentityForEachEndpointAndStandInsteadOfPeer()
    {
        final String two = "ringwire:shm?endpoint=127.0.0.1:1,127.0.0.1:2";
        assertEquals(List.of("member-1", "gateway"),
            ChannelUri.parse(two + "|endpoint-peers=member-1, gateway").endpointPeers());
        final IllegalArgumentException count = assertThrows(IllegalArgumentException.class,
            () -> ChannelUri.parse(two + "|endpoint-peers=gateway"));
        assertTrue(count.getMessage().contains("names 1 identities for 2 endpoints"), count.getMessage());
        final IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
            () -> ChannelUri.parse(two + "|endpoint-peers=gateway,"));
        assertTrue(empty.getMessage().contains("has an empty name"), empty.getMessage());
        final IllegalArgumentException withPeer = assertThrows(IllegalArgumentException.class,
            () -> ChannelUri.parse(two + "|endpoint-peers=gateway,gateway|peer=gateway"));
        assertTrue(withPeer.getMessage().contains("give one"), withPeer.getMessage());
        final IllegalArgumentException untrusted = assertThrows(IllegalArgumentException.class,
            () -> ChannelKeys.forPublication(engineSide(), ChannelUri.parse(two + "|endpoint-peers=gateway,nobody")));
        assertTrue(untrusted.getMessage().contains("endpoint-peers names 'nobody'"), untrusted.getMessage());
        final List<ConnectionManagerConfig> keys = ChannelKeys.forPublication(engineSide(),
            ChannelUri.parse(two + "|endpoint-peers=member-1,gateway"));
        assertEquals(Set.of("member-1"), keys.get(0).trusted().keySet());
        assertEquals(Set.of("gateway"), keys.get(1).trusted().keySet());
        // A subscription reading endpoint-peers= alone would take every trusted key.
        final IllegalArgumentException subscription = assertThrows(IllegalArgumentException.class,
            () -> ChannelKeys.forSubscription(side(GATEWAY), ChannelUri.parse(
                "ringwire:shm?endpoint=127.0.0.1:1|endpoint-peers=engine")));
        assertTrue(subscription.getMessage().contains("this end reads accept="), subscription.getMessage());
    }

    @Test
    void anEvictedImageIsClosedToldAndCountedAndItsPublicationLosesTheConnection()
    {
        try (Subscription subscription = Subscription.open(engineSide(), channel("shm", 0, ""), STREAM);
             Publication gateway = Publication.open(side(GATEWAY),
                 channel("shm", subscription.endpoint().getPort(), ""), STREAM))
        {
            final List<Integer> lost = new ArrayList<>();
            subscription.unavailableImageHandler(lost::add);
            await(() -> gateway.isConnected() && subscription.imageCount() == 1, WAIT, "connected", () ->
            {
                subscription.poll((buffer, offset, length, header) -> { }, 10);
                gateway.doWork();
            });
            assertTrue(subscription.closeImage(gateway.sessionId()));
            assertEquals(List.of(gateway.sessionId()), lost);
            assertEquals(1, subscription.counters().imagesEvicted.get());
            assertFalse(subscription.closeImage(gateway.sessionId()), "only once");
            await(() -> !gateway.isConnected() || gateway.offer(new org.agrona.concurrent.UnsafeBuffer(new byte[8]), 0,
                8) == Publication.NOT_CONNECTED, WAIT, "the publication noticed", gateway::doWork);
        }
    }

    @Test
    void aChannelNamesOnlyIdentitiesAndKeysTheContextHolds()
    {
        final MessagingContext two = context(directory, context -> context.identity(ENGINE).identity(GATEWAY)
            .trust(List.of(MEMBER.peerKey())));
        final IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
            () -> ChannelKeys.forSubscription(two, ChannelUri.parse(channel("shm", 0, ""))));
        assertTrue(none.getMessage().contains("holds several"), none.getMessage());
        assertEquals("gateway", ChannelKeys.forSubscription(two,
            ChannelUri.parse(channel("shm", 0, "|identity=gateway"))).identity().name());
        final IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
            () -> ChannelKeys.forPublication(two, ChannelUri.parse(channel("shm", 0, "|identity=engine|peer=nobody"))));
        assertTrue(unknown.getMessage().contains("peer names 'nobody'"), unknown.getMessage());
        assertNotNull(ChannelKeys.forPublication(two, ChannelUri.parse(channel("shm", 0, "|identity=engine|peer=member-1"))));
    }

    @Test
    void aChannelNamingOnlyTheOtherEndsIdentitiesIsRefusedAndOneNamingBothIsReadByEachEnd()
    {
        final MessagingContext two = context(directory, context -> context.identity(ENGINE).identity(GATEWAY)
            .trust(List.of(MEMBER.peerKey())));
        // On its own, the other end's parameter would leave this end taking every trusted key.
        final IllegalArgumentException subscription = assertThrows(IllegalArgumentException.class,
            () -> ChannelKeys.forSubscription(two, ChannelUri.parse(channel("shm", 0, "|identity=engine|peer=member-1"))));
        assertTrue(subscription.getMessage().contains("this end reads accept="), subscription.getMessage());
        final IllegalArgumentException publication = assertThrows(IllegalArgumentException.class,
            () -> ChannelKeys.forPublication(two, ChannelUri.parse(channel("shm", 0, "|identity=engine|accept=member-1"))));
        assertTrue(publication.getMessage().contains("this end reads peer="), publication.getMessage());
        final String both = channel("shm", 0, "|identity=engine|accept=member-1|peer=member-1");
        assertEquals(Set.of("member-1"), ChannelKeys.forSubscription(two, ChannelUri.parse(both)).trusted()
            .keySet());
        assertNotNull(ChannelKeys.forPublication(two, ChannelUri.parse(both)));
    }

    @Test
    void aSessionIdIsAPublicationsToNameAndAWholeNumber()
    {
        assertEquals(-7, ChannelUri.parse(channel("shm", 0, "|session-id=-7")).sessionId().orElseThrow());
        assertTrue(ChannelUri.parse(channel("shm", 0, "")).sessionId().isEmpty());
        final IllegalArgumentException notANumber = assertThrows(IllegalArgumentException.class,
            () -> ChannelUri.parse(channel("shm", 0, "|session-id=seven")));
        assertTrue(notANumber.getMessage().contains("session-id=seven is not a 32-bit integer"), notANumber.getMessage());
        final IllegalArgumentException onASubscription = assertThrows(IllegalArgumentException.class,
            () -> Subscription.open(engineSide(), channel("shm", 0, "|session-id=7"), STREAM));
        assertTrue(onASubscription.getMessage().contains("session-id= is the session a publication connects under"),
            onASubscription.getMessage());
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aPublicationConnectsUnderTheSessionIdItsChannelNamesAndKeepsItWhenItConnectsAgain(final String provider)
    {
        try (Subscription subscription = Subscription.open(engineSide(), channel(provider, 0, ""), STREAM);
             Publication gateway = Publication.open(side(GATEWAY),
                 channel(provider, subscription.endpoint().getPort(), "|session-id=" + Integer.MIN_VALUE), STREAM))
        {
            final List<Integer> sessions = new ArrayList<>();
            subscription.availableImageHandler(sessions::add);
            final Runnable duty = () ->
            {
                subscription.poll((buffer, offset, length, header) -> { }, 10);
                gateway.doWork();
            };
            await(() -> gateway.isConnected() && sessions.size() == 1, WAIT, "the gateway connected", duty);
            assertEquals(List.of(Integer.MIN_VALUE), sessions);
            assertEquals(Integer.MIN_VALUE, gateway.sessionId());
            // Its only subscriber gone, it starts a new session when it connects again: under the same id.
            assertTrue(subscription.closeImage(Integer.MIN_VALUE));
            await(() -> sessions.size() == 2 && gateway.isConnected(), WAIT, "the gateway connected again", duty);
            assertEquals(List.of(Integer.MIN_VALUE, Integer.MIN_VALUE), sessions);
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aSubscriptionRefusesAPublicationNamingASessionIdItReservesAndTakesOneNamingAnother(final String provider)
    {
        // Four ids from MAX_VALUE - 1, wrapping: MAX_VALUE - 1, MAX_VALUE, MIN_VALUE, MIN_VALUE + 1.
        try (Subscription subscription = Subscription.open(engineSide(), channel(provider, 0, ""), STREAM)
            .reserveSessionIds(Integer.MAX_VALUE - 1, 4);
             Publication reserved = Publication.open(side(GATEWAY),
                 channel(provider, subscription.endpoint().getPort(), "|session-id=" + (Integer.MIN_VALUE + 1)), STREAM);
             Publication free = Publication.open(side(GATEWAY),
                 channel(provider, subscription.endpoint().getPort(), "|session-id=" + (Integer.MIN_VALUE + 2)), STREAM))
        {
            await(() -> free.isConnected() && subscription.imageCount() == 1 && null != reserved.lastConnectionError(), WAIT,
                "the free id connected and the reserved one refused", () ->
                {
                    subscription.poll((buffer, offset, length, header) -> { }, 10);
                    reserved.doWork();
                    free.doWork();
                });
            assertFalse(reserved.isConnected());
            assertTrue(reserved.lastConnectionError().contains("session id " + (Integer.MIN_VALUE + 1) + " is reserved"),
                reserved.lastConnectionError());
            assertEquals(1, subscription.imageCount());
        }
        try (Subscription subscription = Subscription.open(engineSide(), channel("shm", 0, ""), STREAM))
        {
            assertThrows(IllegalArgumentException.class, () -> subscription.reserveSessionIds(0, -1));
        }
    }

    @Test
    void aFragmentsSessionIsItsImagesEvenWhenItsPublisherWritesTheFrameAgainAfterItWasChecked()
    {
        try (Subscription subscription = Subscription.open(engineSide(), channel("shm", 0, ""), STREAM);
             Publication gateway = Publication.open(side(GATEWAY),
                 channel("shm", subscription.endpoint().getPort(), "|session-id=77"), STREAM))
        {
            await(gateway::isConnected, WAIT, "connected", () ->
            {
                subscription.poll((buffer, offset, length, header) -> { }, 10);
                gateway.doWork();
            });
            final org.agrona.concurrent.UnsafeBuffer message = new org.agrona.concurrent.UnsafeBuffer(new byte[8]);
            await(() -> gateway.offer(message, 0, 8) > 0, WAIT, "offered", gateway::doWork);
            final List<Integer> seen = new ArrayList<>();
            await(() -> !seen.isEmpty(), WAIT, "delivered", () -> subscription.poll((buffer, offset, length, header) ->
            {
                // What a publisher writing its mapped ring again could do once the frame was checked.
                ((org.agrona.MutableDirectBuffer)buffer).putInt(offset - io.ringwire.messaging.protocol.FrameDescriptor
                    .HEADER_LENGTH + io.ringwire.messaging.protocol.FrameDescriptor.SESSION_ID_OFFSET, 78,
                    java.nio.ByteOrder.LITTLE_ENDIAN);
                seen.add(header.sessionId());
                seen.add(header.streamId());
            }, 10));
            assertEquals(List.of(77, STREAM), seen);
        }
    }
}
