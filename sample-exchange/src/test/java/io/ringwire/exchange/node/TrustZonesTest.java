package io.ringwire.exchange.node;

import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.LogonEncoder;
import io.ringwire.codecs.trading.LogonRejectReason;
import io.ringwire.codecs.trading.LogonResponseDecoder;
import io.ringwire.codecs.trading.LogonStatus;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.SnapshotRequestEncoder;
import io.ringwire.codecs.trading.TimeInForce;
import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.exchange.demo.LatencyLedger;
import io.ringwire.exchange.demo.MarketDataClient;
import io.ringwire.exchange.demo.SimulatedClients;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.gateway.GatewayConfig;
import io.ringwire.exchange.marketdata.SnapshotSchedule;
import io.ringwire.exchange.gateway.GatewayCounters;
import io.ringwire.exchange.gateway.SessionConfig;
import io.ringwire.exchange.gateway.TransportLimits;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import io.ringwire.rdma.cm.Identity;
import org.HdrHistogram.Histogram;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The trust zones under attack, through real messaging: the core's roles, two honest members
 * trading, a market-data subscriber, and a hostile member holding its own key and every public key
 * (public keys are not secret). Each attack class of a hostile client is tried while the honest
 * members trade, and every run ends with their conservation: every new order acknowledged once, as
 * much bought as sold, no session of theirs ever lost.
 *
 * <p>Thread layout: the exchange's roles and the honest clients on one spinning thread; the hostile
 * member on the test's thread.
 */
@Tag("system")
class TrustZonesTest
{
    private static final String PROVIDER = "shm";
    private static final int INSTRUMENTS = 4;
    private static final long RATE = 2_000;
    private static final int HOSTILE = 2;
    private static final Duration WAIT = Duration.ofSeconds(20);
    /**
     * The exchange's roles and the honest members share one thread here, beside the test's own and
     * the JIT's on two CPUs: a second's stall of it, which a loaded machine sees, would otherwise
     * read as every honest link gone at once and cost sessions the test is not about. The hostile
     * member has as long: no case here is about how soon it takes the exchange for gone, and a
     * stall read so would drop its link in the middle of a case (a slow reader's new connection is
     * only ever answered "not logged on").
     */
    private static final int LIVENESS_MS = 4_000;

    @TempDir
    Path directory;

    private final Map<String, Identity> identities = new HashMap<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private ExchangeLayout layout;
    private EngineNode engine;
    private GatewayNode gateway;
    private MarketDataNode marketData;
    private SimulatedClients honest;
    private LatencyLedger ledger;
    private Thread exchangeThread;
    private final List<Throwable> failures = new ArrayList<>();
    private MessagingContext hostileContext;
    private Subscription hostileReplies;
    private final UnsafeBuffer scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();

    @BeforeEach
    void startTheExchangeWithTwoHonestMembersAndAHostileOne() throws Exception
    {
        layout = ExchangeLayout.onFreePorts(PROVIDER, 3, 1);
        for (final String name : layout.identities())
        {
            identities.put(name, Identity.generate(name));
        }
        final MessagingContext core = context(List.of(ExchangeLayout.ENGINE, ExchangeLayout.GATEWAY,
            ExchangeLayout.MARKET_DATA), layout.identities(), LIVENESS_MS);
        final MessagingContext members = context(List.of(layout.members().get(0), layout.members().get(1),
            layout.marketDataSubscribers().getFirst()), List.of(ExchangeLayout.GATEWAY, ExchangeLayout.MARKET_DATA),
            LIVENESS_MS);
        // The hostile member holds its own key and knows every public key.
        hostileContext = context(List.of(layout.members().get(HOSTILE)), layout.identities(), LIVENESS_MS);

        final EngineConfig engineConfig = ExchangeDemo.engineConfig(INSTRUMENTS, 3);
        final GatewayConfig demo = ExchangeDemo.gatewayConfig(3, RATE, engineConfig, 0);
        final GatewayConfig gatewayConfig = new GatewayConfig(demo.sessions(), demo.instruments(),
            demo.referencePrices(), demo.limits(), demo.maxMessagesPerSecond(), demo.burst(),
            demo.maxClientOrderIdsPerSession(), new TransportLimits(256, 1_000, 5, 5, 16, 64 << 10, 300, 1 << 17));
        final io.ringwire.exchange.node.RunFlag flag = new io.ringwire.exchange.node.RunFlag();
        ledger = new LatencyLedger();
        engine = add(new EngineNode(core, layout, directory.resolve("journal"), engineConfig, flag));
        gateway = add(new GatewayNode(core, layout, gatewayConfig, flag));
        marketData = add(new MarketDataNode(core, layout, engineConfig, flag));
        final MarketDataClient subscriber = add(new MarketDataClient(members, layout, 0, engineConfig, ledger, flag));
        honest = add(new SimulatedClients(members, layout, demo.sessions().subList(0, 2), 0, INSTRUMENTS, RATE, 7,
            ledger, flag));
        hostileReplies = add(Subscription.open(hostileContext, layout.clientRepliesSubscription(HOSTILE),
            ExchangeLayout.REPLIES_STREAM));
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (!(engine.isConnected() && gateway.isConnected() && gateway.clientsConnected() && marketData.isConnected() && subscriber.isConnected() &&
            honest.isConnected()))
        {
            if (System.nanoTime() > deadline)
            {
                fail("the exchange did not connect within " + WAIT);
            }
            engine.doWork();
            gateway.doWork();
            marketData.doWork();
            subscriber.doWork();
            honest.pollOnly();
            hostileReplies.poll((buffer, offset, length, h) -> { }, 10);
        }
        engine.open();
        exchangeThread = Thread.ofPlatform().name("exchange").start(() ->
        {
            try
            {
                while (running.get())
                {
                    final int work = engine.doWork() + gateway.doWork() + marketData.doWork() + subscriber.doWork() +
                        honest.doWork();
                    if (work == 0)
                    {
                        Thread.onSpinWait();
                    }
                }
            }
            catch (final Throwable ex)
            {
                failures.add(ex);
            }
        });
    }

    @AfterEach
    void stop() throws InterruptedException
    {
        running.set(false);
        if (null != exchangeThread)
        {
            exchangeThread.join(10_000);
        }
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(closeables.get(i));
        }
    }

    @Test
    void aMemberKeyOpensTheGatewaysMemberEndpointAndNothingElse() throws Exception
    {
        final Map<String, String> endpoints = Map.of(
            "the engine's requests", layout.engineRequests(),
            "the gateway's reports", layout.gatewayReports(),
            "another member's replies", layout.clientReplies().getFirst(),
            "the market-data feed", layout.marketDataFeed(),
            "the snapshot requests", layout.snapshotRequests());
        final Map<String, Publication> attempts = new HashMap<>();
        for (final Map.Entry<String, String> endpoint : endpoints.entrySet())
        {
            attempts.put(endpoint.getKey(), add(Publication.open(hostileContext,
                "ringwire:" + PROVIDER + "?endpoint=" + endpoint.getValue(), streamOf(endpoint.getKey()))));
        }
        final Publication orders = add(Publication.open(hostileContext,
            layout.clientOrdersPublication(HOSTILE), ExchangeLayout.ORDERS_STREAM));
        await(() -> orders.isConnected() && attempts.values().stream().allMatch(p -> null != p.lastConnectionError()),
            "the member endpoint taken and every other one refused", () ->
            {
                orders.doWork();
                attempts.values().forEach(Publication::doWork);
            });
        for (final Map.Entry<String, Publication> attempt : attempts.entrySet())
        {
            assertFalse(attempt.getValue().isConnected(), attempt.getKey());
            assertTrue(attempt.getValue().lastConnectionError().contains("UNKNOWN_IDENTITY"),
                attempt.getKey() + ": " + attempt.getValue().lastConnectionError());
        }
        assertTrue(engine.identitiesRefused() >= 1, "the engine counts its refusal");
        assertTrue(gateway.identitiesRefused() >= 1, "the gateway counts its refusal");
        assertTrue(marketData.identitiesRefused() >= 2, "the market-data service counts its refusals");
        assertHonestMembersConserved();
    }

    @Test
    void aConnectionNamingAnotherMembersSessionIsRefusedAndOnlyTheAskerHears() throws Exception
    {
        final Publication orders = connectHostileOrders();
        final SessionConfig victim = session(0);
        send(orders, logon(victim.sessionId(), victim.token())); // a stolen token: the key is not the victim's
        final LogonResponseDecoder response = awaitLogonResponse();
        assertEquals(LogonStatus.REJECTED, response.status());
        assertEquals(LogonRejectReason.BAD_CREDENTIALS, response.rejectReason());
        awaitCounter(() -> counters().impersonations() == 1, "the impersonation counted");
        assertHonestMembersConserved();
    }

    @Test
    void silentConnectionsAreBoundedPerMemberAndReapedWhileHonestMembersTrade() throws Exception
    {
        final List<Publication> silent = new ArrayList<>();
        for (int i = 0; i < 6; i++)
        {
            silent.add(add(Publication.open(hostileContext, layout.clientOrdersPublication(HOSTILE),
                ExchangeLayout.ORDERS_STREAM)));
        }
        await(() -> silent.stream().filter(Publication::isConnected).count() == ExchangeLayout.MEMBER_CONNECTIONS &&
            silent.stream().filter(p -> !p.isConnected()).allMatch(p -> null != p.lastConnectionError()),
            "the member's connections bounded", () -> silent.forEach(Publication::doWork));
        assertTrue(silent.stream().filter(p -> !p.isConnected()).allMatch(p ->
            p.lastConnectionError().contains("has " + ExchangeLayout.MEMBER_CONNECTIONS + " publications here")));
        final long sentBefore = honest.counters().get(SimulatedClients.ACKS);
        awaitCounter(() -> counters().logonTimeouts() >= ExchangeLayout.MEMBER_CONNECTIONS,
            "the silent connections reaped after the logon timeout", () -> silent.forEach(Publication::doWork));
        awaitCounter(() -> honest.counters().get(SimulatedClients.ACKS) > sentBefore + 100,
            "the honest members trading meanwhile", () -> silent.forEach(Publication::doWork));
        assertHonestMembersConserved();
    }

    @Test
    void aMemberThatReadsItsRepliesTooSlowlyIsCutOffAndItsOrdersCanceledWhileTheOthersTrade() throws Exception
    {
        final Histogram before = honestAcks(Duration.ofMillis(1_500));
        final Publication orders = logOnHostile();
        final NewOrderEncoder order = new NewOrderEncoder();
        long clientOrderId = 1;
        // Each order is refused by the gateway's risk check (too large) and draws a report; the
        // member reads one reply every 20 ms, alive but far behind.
        final long deadline = System.nanoTime() + WAIT.toNanos();
        long nextReadNs = System.nanoTime();
        long offered = 0;
        while (counters().slowConsumerDisconnects() == 0)
        {
            if (System.nanoTime() > deadline)
            {
                fail("the slow reader was not cut off within " + WAIT + ": sent " + clientOrderId + ", offered " + offered +
                    ", gateway " + counters().rejects(io.ringwire.codecs.trading.RejectReason.MAX_ORDER_QUANTITY) +
                    " quantity rejects, " + counters().throttled() + " throttled, " + counters().sessionsUnreachable() +
                    " unreachable, " + counters().sessionSendFailures() + " send failures, " + counters().logons() +
                    " logons, " + counters().malformed() + " malformed, " + counters().forwarded() + " forwarded, " +
                    counters().notLoggedOn() + " not logged on, " + counters().repliesThrottled() + " replies throttled, " +
                    counters().unidentifiedTransports() + " unidentified, " + counters().rejects(
                    io.ringwire.codecs.trading.RejectReason.INVALID_QUANTITY) + " invalid quantity");
            }
            final int length = MessageHeaderEncoder.ENCODED_LENGTH + order.wrapAndApplyHeader(scratch, 0, header)
                .clientOrderId(clientOrderId++).account(session(HOSTILE).account()).instrumentId(1).side(Side.BUY)
                .ordType(OrdType.LIMIT).timeInForce(TimeInForce.DAY).price(SimulatedClients.basePrice())
                .quantity(10_000_000).sendingTime(System.nanoTime()).encodedLength();
            offered += orders.offer(scratch, 0, length) > 0 ? 1 : 0;
            orders.doWork();
            hostileReplies.doWork(); // alive: its heartbeats and credit go out
            if (System.nanoTime() - nextReadNs > 0)
            {
                hostileReplies.poll((buffer, offset, replyLength, h) -> { }, 1);
                nextReadNs = System.nanoTime() + 20_000_000L;
            }
        }
        final Histogram during = honestAcks(Duration.ofMillis(1_500));
        assertTrue(counters().cancelOnDisconnects() >= 1, "its session lost, its orders canceled");
        System.out.println("honest order-to-ack p99 before the slow reader " + before.getValueAtPercentile(99) / 1000 +
            " us, while it was cut off " + during.getValueAtPercentile(99) / 1000 + " us");
        assertHonestMembersConserved();
    }

    @Test
    void aRingAboveTheGatewaysLargestIsRefusedWithTheReason()
    {
        final Publication huge = add(Publication.open(hostileContext, layout.clientOrdersPublication(HOSTILE) +
            "|ring=" + (2 * ExchangeLayout.MEMBER_RING_LIMIT), ExchangeLayout.ORDERS_STREAM));
        await(() -> null != huge.lastConnectionError(), "the huge ring refused", huge::doWork);
        assertFalse(huge.isConnected());
        assertTrue(huge.lastConnectionError().contains("above this subscription's largest, " +
            ExchangeLayout.MEMBER_RING_LIMIT), huge.lastConnectionError());
    }

    @Test
    void aMarketDataSubscriberHoldsAtMostTwoSnapshotRequestConnectionsAndNoLargeRing() throws Exception
    {
        // A market-data subscriber's key in a hostile process: the honest subscriber holds one
        // connection to the snapshot-request endpoint already.
        final MessagingContext hostileSubscriber = context(List.of(layout.marketDataSubscribers().getFirst()),
            List.of(ExchangeLayout.MARKET_DATA), LIVENESS_MS);
        // First a ring above the endpoint's largest, while the endpoint has room for it.
        final Publication huge = add(Publication.open(hostileSubscriber, layout.snapshotRequestsPublication(0) +
            "|ring=" + (2 * ExchangeLayout.MEMBER_RING_LIMIT), ExchangeLayout.SNAPSHOT_REQUESTS_STREAM));
        await(() -> null != huge.lastConnectionError(), "the huge ring refused", huge::doWork);
        assertFalse(huge.isConnected());
        assertTrue(huge.lastConnectionError().contains("above this subscription's largest, " +
            ExchangeLayout.MEMBER_RING_LIMIT), huge.lastConnectionError());
        huge.close();

        final List<Publication> requests = new ArrayList<>();
        for (int i = 0; i < 4; i++)
        {
            requests.add(add(Publication.open(hostileSubscriber, layout.snapshotRequestsPublication(0),
                ExchangeLayout.SNAPSHOT_REQUESTS_STREAM)));
        }
        await(() -> requests.stream().filter(Publication::isConnected).count() == ExchangeLayout.MEMBER_CONNECTIONS - 1 &&
            requests.stream().filter(p -> !p.isConnected()).allMatch(p -> null != p.lastConnectionError()),
            "the subscriber's snapshot-request connections bounded", () -> requests.forEach(Publication::doWork));
        // Refused for the identity's limit, or for the endpoint's room (two for each of the layout's
        // one subscriber): either way at the subscriber's two.
        assertTrue(requests.stream().filter(p -> !p.isConnected()).allMatch(p ->
            p.lastConnectionError().contains("has " + ExchangeLayout.MEMBER_CONNECTIONS + " publications here") ||
            p.lastConnectionError().contains("subscription full")),
            () -> requests.stream().map(Publication::lastConnectionError).toList().toString());
        assertHonestMembersConserved();
    }

    @Test
    void aSubscriberThatFloodsSnapshotRequestsGetsEachBookAtMostOnceAnIntervalForEveryone() throws Exception
    {
        final MessagingContext hostileSubscriber = context(List.of(layout.marketDataSubscribers().getFirst()),
            List.of(ExchangeLayout.MARKET_DATA), LIVENESS_MS);
        final Publication requests = add(Publication.open(hostileSubscriber, layout.snapshotRequestsPublication(0),
            ExchangeLayout.SNAPSHOT_REQUESTS_STREAM));
        await(requests::isConnected, "the subscriber's second snapshot-request connection", requests::doWork);
        final int length = MessageHeaderEncoder.ENCODED_LENGTH + new SnapshotRequestEncoder()
            .wrapAndApplyHeader(scratch, 0, header).instrumentId(0).requesterId(HOSTILE).encodedLength();
        final long requestsBefore = marketData.snapshotRequests();
        final long booksBefore = marketData.booksSnapshotted();
        final long startNs = System.nanoTime();
        long offered = 0;
        while (System.nanoTime() - startNs < Duration.ofMillis(1_500).toNanos())
        {
            offered += requests.offer(scratch, 0, length) > 0 ? 1 : 0;
            requests.doWork();
        }
        final long sentOffered = offered;
        awaitCounter(() -> marketData.snapshotRequests() - requestsBefore >= sentOffered,
            () -> "the service took every request: " + (marketData.snapshotRequests() - requestsBefore) + " of " +
                sentOffered, () -> { });
        final long elapsedNs = System.nanoTime() - startNs;
        final long books = marketData.booksSnapshotted() - booksBefore;
        assertTrue(offered > 1_000, "the flood: " + offered + " requests for every book");
        assertTrue(books <= INSTRUMENTS * (elapsedNs / SnapshotSchedule.MIN_INTERVAL_NS + 2),
            books + " book snapshots for " + offered + " requests in " + elapsedNs / 1_000_000 + " ms");
        assertTrue(books >= INSTRUMENTS, "the requests were answered: " + books);
        assertHonestMembersConserved();
    }

    @Test
    void aMemberThatKeepsSendingMalformedMessagesIsDisconnected() throws Exception
    {
        final Publication orders = logOnHostile();
        for (int i = 0; i < 40; i++)
        {
            scratch.setMemory(0, 64, (byte)0x5A);
            while (orders.offer(scratch, 0, 64) < 0)
            {
                orders.doWork();
            }
        }
        awaitCounter(() -> counters().malformedDisconnects() == 1, "the malformed sender disconnected",
            orders::doWork);
        awaitCounter(() -> counters().cancelOnDisconnects() >= 1, "its session lost", orders::doWork);
        assertHonestMembersConserved();
    }

    // ---------------------------------------------------------------- helpers

    private MessagingContext context(final List<String> own, final List<String> trusted, final int livenessMs)
    {
        return RoleContexts.context(directory, identities, own, trusted, livenessMs, 0);
    }

    private static int streamOf(final String endpoint)
    {
        return switch (endpoint)
        {
            case "the engine's requests" -> ExchangeLayout.REQUESTS_STREAM;
            case "the gateway's reports" -> ExchangeLayout.REPORTS_STREAM;
            case "another member's replies" -> ExchangeLayout.REPLIES_STREAM;
            case "the market-data feed" -> ExchangeLayout.FEED_STREAM;
            default -> ExchangeLayout.SNAPSHOT_REQUESTS_STREAM;
        };
    }

    private <T extends AutoCloseable> T add(final T closeable)
    {
        closeables.add(closeable);
        return closeable;
    }

    /** @return how the gateway lost sessions, for a failure's message (a lost session's replies in flight are lost with it). */
    private String sessionsLost()
    {
        final GatewayCounters g = counters();
        return "; gateway: " + g.logons() + " logons, " + g.heartbeatTimeouts() + " heartbeat timeouts, " +
            g.transportLosses() + " transport losses, " + g.sessionsUnreachable() + " unreachable, " +
            g.slowConsumerDisconnects() + " slow consumers, " + g.sessionSendFailures() + " send failures, " +
            g.reportsForGoneSessions() + " reports for gone sessions, " + g.cancelOnDisconnects() + " cancel-on-disconnect";
    }

    private GatewayCounters counters()
    {
        return gateway.gateway().counters();
    }

    private SessionConfig session(final int index)
    {
        return ExchangeDemo.sessions(3).get(index);
    }

    private Publication connectHostileOrders()
    {
        final Publication orders = add(Publication.open(hostileContext, layout.clientOrdersPublication(HOSTILE),
            ExchangeLayout.ORDERS_STREAM));
        await(orders::isConnected, "the hostile member connected", () ->
        {
            orders.doWork();
            serviceHostileReplies();
        });
        return orders;
    }

    private Publication logOnHostile()
    {
        final Publication orders = connectHostileOrders();
        send(orders, logon(session(HOSTILE).sessionId(), session(HOSTILE).token()));
        assertEquals(LogonStatus.ACCEPTED, awaitLogonResponse().status());
        return orders;
    }

    private int logon(final long sessionId, final String token)
    {
        return MessageHeaderEncoder.ENCODED_LENGTH + new LogonEncoder().wrapAndApplyHeader(scratch, 0, header)
            .sessionId(sessionId).heartbeatIntervalMs(1_000).sendingTime(System.nanoTime()).nextReplySequence(0)
            .replyLife(0).credentials(token)
            .encodedLength();
    }

    /** Offers a Logon of the hostile member's; nothing is due back on its reply stream before it goes. */
    private void send(final Publication publication, final int length)
    {
        await(() -> publication.offer(scratch, 0, length) > 0, "the message offered", () ->
        {
            publication.doWork();
            serviceHostileReplies();
        });
    }

    /**
     * Keeps the hostile member's reply stream alive while the test waits on something else: its
     * subscription closes an image it has not heard from within its liveness, and a loaded machine
     * can take longer than that to connect or offer; a reply arriving on a closed image
     * would be lost. Only where no reply is due yet (what it reads is dropped).
     */
    private void serviceHostileReplies()
    {
        hostileReplies.poll((buffer, offset, length, h) -> { }, 10);
    }

    private LogonResponseDecoder awaitLogonResponse()
    {
        final LogonResponseDecoder response = new LogonResponseDecoder();
        final MessageHeaderDecoder decoder = new MessageHeaderDecoder();
        final boolean[] heard = new boolean[1];
        await(() -> heard[0], "a LogonResponse on the hostile member's own stream", () ->
            hostileReplies.poll((buffer, offset, length, h) ->
            {
                decoder.wrap(buffer, offset);
                if (decoder.templateId() == LogonResponseDecoder.TEMPLATE_ID && !heard[0])
                {
                    final UnsafeBuffer copy = new UnsafeBuffer(new byte[length]);
                    copy.putBytes(0, buffer, offset, length);
                    response.wrapAndApplyHeader(copy, 0, new MessageHeaderDecoder());
                    heard[0] = true;
                }
            }, 10));
        return response;
    }

    /** The honest members' order-to-ack over a window, from the ledger's interval histogram. */
    private Histogram honestAcks(final Duration window) throws InterruptedException
    {
        ledger.interval();
        final long endNs = System.nanoTime() + window.toNanos();
        while (System.nanoTime() - endNs < 0)
        {
            hostileReplies.poll((buffer, offset, length, h) -> { }, 10); // the hostile member stays alive
            Thread.sleep(1);
        }
        return ledger.interval()[LatencyLedger.ORDER_TO_ACK].copy();
    }

    /**
     * Conservation for the honest members: they stop sending, what is in flight drains, every new
     * order was acknowledged once, they bought what they sold, and neither lost its session (both are
     * waited for to log on first).
     */
    private void assertHonestMembersConserved() throws InterruptedException
    {
        final AtomicLongArray c = honest.counters();
        // Both must have logged on before their conservation means anything: one member's trades
        // alone pass the count, and a handshake the loaded machine timed out logs the other on later.
        awaitCounter(() -> c.get(SimulatedClients.LOGGED_ON) == 2 && c.get(SimulatedClients.NEW_ORDERS) > 200,
            () -> "both honest members logged on and trading: " + c + sessionsLost(), () -> { });
        honest.stopSending();
        awaitCounter(() -> c.get(SimulatedClients.ACKS) == c.get(SimulatedClients.NEW_ORDERS),
            () -> "every honest new order acknowledged: " + c + sessionsLost(), () -> { });
        // An order the clients' cycle was sending as they were told to stop counts after the wait saw
        // the two equal: it is awaited too.
        Thread.sleep(300);
        awaitCounter(() -> c.get(SimulatedClients.ACKS) == c.get(SimulatedClients.NEW_ORDERS),
            () -> "every honest new order acknowledged, the last one too: " + c + sessionsLost(), () -> { });
        assertEquals(0, c.get(SimulatedClients.DUPLICATE_ACKS), "none twice");
        assertEquals(c.get(SimulatedClients.BOUGHT), c.get(SimulatedClients.SOLD), "as much bought as sold");
        assertEquals(2, c.get(SimulatedClients.LOGGED_ON), "both honest members stayed logged on" + sessionsLost());
        assertTrue(failures.isEmpty(), "the exchange's thread: " + failures);
    }

    private void awaitCounter(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        awaitCounter(condition, what, () -> { });
    }

    private void awaitCounter(final BooleanSupplier condition, final String what, final Runnable duty)
        throws InterruptedException
    {
        awaitCounter(condition, () -> what, duty);
    }

    /** As {@link #awaitCounter(BooleanSupplier, String)}, the failure's words read when the wait ends. */
    private void awaitCounter(final BooleanSupplier condition, final Supplier<String> what, final Runnable duty)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                fail("timed out after " + WAIT + " waiting for " + what.get());
            }
            duty.run();
            Thread.sleep(1);
        }
    }

    private static void await(final BooleanSupplier condition, final String what, final Runnable duty)
    {
        RoleContexts.await(condition, WAIT, what, duty);
    }
}
