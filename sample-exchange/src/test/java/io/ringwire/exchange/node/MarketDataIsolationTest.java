package io.ringwire.exchange.node;

import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.exchange.demo.LatencyLedger;
import io.ringwire.exchange.demo.MarketDataClient;
import io.ringwire.exchange.demo.SimulatedClients;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.gateway.GatewayConfig;
import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Subscription;
import io.ringwire.rdma.cm.Identity;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Market-data subscribers that hold the fan-out back beside an honest one, through real messaging
 * with small rings (one fills in a fraction of a second), while the members trade: one that stays
 * connected and alive but stops reading is cut off after its slow-timeout, one that reads steadily
 * but slower than the feed (the timeout spares it) as the service's backlog grows; the engine never
 * waits on the service, and a subscriber that reads again rejoins, asks for every book, and ends
 * with the service's books, as the honest subscriber does.
 *
 * <p>Thread layout: the exchange's roles, the members and the honest subscriber on one spinning
 * thread; the other subscriber on the test's thread, which sleeps between its turns.
 */
@Tag("system")
class MarketDataIsolationTest
{
    private static final int INSTRUMENTS = 4;
    private static final long RATE = 2_000;
    private static final int RING = 64 << 10;
    /** Past the first cut-off (a ring filled, then the slow-timeout) with time to spare. */
    private static final Duration STALLED_FOR = Duration.ofSeconds(6);
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int LIVENESS_MS = 4_000;
    /** The market-data service's backlog step in the slow-reader case: two rings. */
    private static final int BACKLOG_STEP = 2 * RING;
    /** The members' rate in the slow-reader case: a feed well past the slow reader's pace. */
    private static final long FAST_RATE = 6_000;
    /**
     * A ring and a half of payload a second (its frames take more of the ring): past the
     * slow-timeout's pace (a ring a second), below the feed's.
     */
    private static final long SLOW_BYTES_PER_S = 3 * RING / 2;

    @TempDir
    Path directory;

    private final Map<String, Identity> identities = new HashMap<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private Exchange exchange;

    @AfterEach
    void close() throws InterruptedException
    {
        if (null != exchange)
        {
            exchange.stopThread();
        }
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(closeables.get(i));
        }
    }

    @Test
    void aSubscriberThatNeverReadsIsCutOffWhileMembersTradeOnAndTheHonestSubscriberKeepsTheBooks() throws Exception
    {
        exchange = new Exchange("shm", MarketDataNode.BACKLOG_STEP, RATE);
        final MarketDataClient stalled = add(new MarketDataClient(exchange.otherSide, exchange.layout, 1,
            exchange.engineConfig, null, exchange.flag));
        exchange.start(stalled::isConnected, stalled::doWork);

        // The stalled subscriber: alive (its housekeeping sends credit and liveness), not reading.
        final AtomicLongArray counters = exchange.members.counters();
        exchange.awaitTrading(stalled::keepAliveWithoutReading);
        final long acksAtStart = counters.get(SimulatedClients.ACKS);
        final long feedBackPressuredAtStart = exchange.engine.feedBackPressured();
        final long endNs = System.nanoTime() + STALLED_FOR.toNanos();
        long windowStartNs = System.nanoTime();
        long acksAtWindowStart = acksAtStart;
        long slowestWindow = Long.MAX_VALUE;
        while (System.nanoTime() - endNs < 0)
        {
            stalled.keepAliveWithoutReading();
            Thread.sleep(5);
            if (System.nanoTime() - windowStartNs > 1_000_000_000L)
            {
                final long acks = counters.get(SimulatedClients.ACKS);
                slowestWindow = Math.min(slowestWindow, acks - acksAtWindowStart);
                acksAtWindowStart = acks;
                windowStartNs = System.nanoTime();
            }
        }
        assertTrue(exchange.marketData.slowSubscribers() >= 1, "the stalled subscriber cut off: " +
            exchange.marketData.slowSubscribers());
        // The engine never waited on the service: none of its feed found the service behind (it
        // takes no request while one waits), however the machine's load paced the thread.
        assertEquals(feedBackPressuredAtStart, exchange.engine.feedBackPressured(),
            "feed messages that found the market-data service behind while a subscriber stalled");
        // And the members traded on: at 2,000 orders a second they get some 1,500
        // acknowledgements a second (the rest of their requests are cancels and replaces). A
        // second's floor is not asserted: a loaded machine stalls the exchange's one thread for
        // about that long (the clients catch up after).
        final long acksDuring = counters.get(SimulatedClients.ACKS) - acksAtStart;
        assertTrue(slowestWindow > 0 && acksDuring > STALLED_FOR.toSeconds() * RATE / 4,
            "while a subscriber stalled the members' slowest second had " + slowestWindow + " acknowledgements, " +
            acksDuring + " in " + STALLED_FOR.toSeconds() + " s");

        // It reads again, while the members go on trading: it rejoins and asks for every book.
        final long requestsBefore = stalled.snapshotRequests();
        await(() -> stalled.snapshotRequests() > requestsBefore && stalled.isConnected(),
            "the stalled subscriber to rejoin and ask for the books", stalled::doWork);
        exchange.stopTrading(stalled::doWork);
        // Both subscribers have the service's books once they have read what is in flight (on
        // this thread now).
        await(() -> exchange.subscriber.books().publicDigest().equals(exchange.marketData.replica().publicDigest()) &&
            stalled.books().publicDigest().equals(exchange.marketData.replica().publicDigest()),
            "both subscribers' books equal to the service's", () ->
            {
                exchange.marketData.doWork();
                exchange.subscriber.doWork();
                stalled.doWork();
            });
        assertEquals(0, exchange.subscriber.books().inconsistencies(), "the honest subscriber's books never disagreed");
        // Its join and each rejoin (one at least; another when a rejoined image filled and was cut again
        // before it read) made every book stale until its snapshot; the honest one joined once.
        assertTrue(stalled.books().feedInterruptions() >= 2, "interruptions " + stalled.books().feedInterruptions());
        assertEquals(1, exchange.subscriber.books().feedInterruptions());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "shm", "socket" })
    void aSubscriberReadingSteadilyButSlowerThanTheFeedIsCutAsTheBacklogGrowsAndTheEngineNeverWaits(
        final String provider) throws Exception
    {
        exchange = new Exchange(provider, BACKLOG_STEP, FAST_RATE);
        final Subscription slow = add(Subscription.open(exchange.otherSide, exchange.layout.marketDataClientSubscription(1),
            ExchangeLayout.MARKET_DATA_STREAM));
        final long[] slowRead = { 0 };
        final FragmentHandler slowReader = (buffer, offset, length, header) -> slowRead[0] += length;
        final Runnable readAll = () -> slow.poll(slowReader, 16);
        exchange.start(() -> slow.imageCount() > 0, readAll);

        // The slow subscriber reads SLOW_BYTES_PER_S whatever its turns' timing: more than a ring
        // per slow-timeout, so the timeout never finds it slow, and less than the feed brings.
        exchange.awaitTrading(readAll);
        final MarketDataNode marketData = exchange.marketData;
        final long feedBackPressuredAtStart = exchange.engine.feedBackPressured();
        final long honestRequestsAtStart = exchange.subscriber.snapshotRequests();
        final long publishedAtStart = marketData.published();
        final long startNs = System.nanoTime();
        final long readAtStart = slowRead[0];
        while (System.nanoTime() - startNs < STALLED_FOR.toNanos())
        {
            final long allowed = readAtStart + (System.nanoTime() - startNs) * SLOW_BYTES_PER_S / 1_000_000_000L;
            while (slowRead[0] < allowed && slow.poll(slowReader, 1) > 0)
            {
                // read up to the allowance
            }
            slow.doWork();
            Thread.sleep(2);
        }
        final String pace = "the feed published " + (marketData.published() - publishedAtStart) + " messages, " +
            "the slow subscriber read " + (slowRead[0] - readAtStart) + " bytes in " + STALLED_FOR.toSeconds() +
            " s; cuts: " + marketData.backlogCuts() + " for the backlog, " + marketData.slowSubscribers() + " in all";
        System.out.println(provider + ": " + pace);
        // Over shm the engine never waited. Over a transport with a receive window it may, for a
        // moment, while the service drains its backlog at once after a cut (a few offers); paced by
        // the slow subscriber it would wait at nearly every offer.
        final long waited = exchange.engine.feedBackPressured() - feedBackPressuredAtStart;
        assertTrue("shm".equals(provider) ? waited == 0 : waited <= (marketData.published() - publishedAtStart) / 100,
            waited + " feed offers found the market-data service behind while a subscriber read slowly: " + pace);
        assertTrue(marketData.backlogCuts() >= 1, "the slow subscriber cut as the backlog grew: " + pace);
        // A subscriber cut asks for every book when it rejoins: the honest one never did.
        assertEquals(honestRequestsAtStart, exchange.subscriber.snapshotRequests(), "the honest subscriber was not cut");

        exchange.stopTrading(readAll);
        await(() -> exchange.subscriber.books().publicDigest().equals(marketData.replica().publicDigest()),
            "the honest subscriber's books equal to the service's", () ->
            {
                marketData.doWork();
                exchange.subscriber.doWork();
                readAll.run();
            });
        assertEquals(0, exchange.subscriber.books().inconsistencies(), "the honest subscriber's books never disagreed");
        // Read on this thread now, after the exchange's stopped: one cut near the window's end has
        // rejoined and asked by now.
        assertEquals(honestRequestsAtStart, exchange.subscriber.snapshotRequests(), "the honest subscriber was not cut");
    }

    @Test
    void twoSubscribersReadingSteadilyButSlowerThanTheFeedAreCutOnceTheEngineWaitsSoTheMembersTradeOn()
        throws Exception
    {
        exchange = new Exchange("shm", BACKLOG_STEP, FAST_RATE, false);
        final List<Subscription> slow = List.of(
            add(Subscription.open(exchange.honestSide, exchange.layout.marketDataClientSubscription(0),
                ExchangeLayout.MARKET_DATA_STREAM)),
            add(Subscription.open(exchange.otherSide, exchange.layout.marketDataClientSubscription(1),
                ExchangeLayout.MARKET_DATA_STREAM)));
        final long[] read = new long[slow.size()];
        final List<FragmentHandler> readers = List.of((buffer, offset, length, header) -> read[0] += length,
            (buffer, offset, length, header) -> read[1] += length);
        final Runnable readAll = () ->
        {
            for (int i = 0; i < slow.size(); i++)
            {
                slow.get(i).poll(readers.get(i), 16);
            }
        };
        exchange.start(() -> slow.get(0).imageCount() > 0 && slow.get(1).imageCount() > 0, readAll);
        exchange.awaitTrading(readAll);

        // Both read SLOW_BYTES_PER_S: neither is ever slow by the timeout, and as both hold the fan-out
        // back at every look, neither stands out when the backlog grows by a step. Once the backlog
        // stops the feed, the engine waits: then the service cuts them, the one holding back the
        // longest first, so the engine waits on the service's pace, not on theirs.
        final AtomicLongArray counters = exchange.members.counters();
        final MarketDataNode marketData = exchange.marketData;
        final long acksAtStart = counters.get(SimulatedClients.ACKS);
        final long startNs = System.nanoTime();
        final long[] readAtStart = read.clone();
        while (System.nanoTime() - startNs < STALLED_FOR.toNanos())
        {
            final long allowance = (System.nanoTime() - startNs) * SLOW_BYTES_PER_S / 1_000_000_000L;
            for (int i = 0; i < slow.size(); i++)
            {
                while (read[i] < readAtStart[i] + allowance && slow.get(i).poll(readers.get(i), 1) > 0)
                {
                    // read up to the allowance
                }
                slow.get(i).doWork();
            }
            Thread.sleep(2);
        }
        final long acks = counters.get(SimulatedClients.ACKS) - acksAtStart;
        final String pace = "the members had " + acks + " acknowledgements in " + STALLED_FOR.toSeconds() +
            " s; the slow subscribers read " + (read[0] - readAtStart[0]) + " and " + (read[1] - readAtStart[1]) +
            " bytes; cuts: " + marketData.backlogCuts() + " for the backlog, " + marketData.slowSubscribers() +
            " in all; the engine's feed refused " + exchange.engine.feedBackPressured() + " offers";
        System.out.println(pace);
        assertTrue(marketData.backlogCuts() >= 2, "both slow subscribers cut as the engine waited: " + pace);
        // At 6,000 orders a second the members get some 4,500 acknowledgements a second; paced by
        // the two slow subscribers' reading they would get a fraction of that.
        assertTrue(acks > STALLED_FOR.toSeconds() * FAST_RATE / 4, "the members traded on: " + pace);
        exchange.stopTrading(readAll);
    }

    /**
     * The exchange's roles, two members and the honest subscriber (index 0), on one spinning thread
     * once started; the other subscriber (index 1) is the test's, in {@link #otherSide}.
     */
    private final class Exchange
    {
        final ExchangeLayout layout;
        final MessagingContext otherSide;
        /** The members' and the honest subscriber's side (index 0's identity). */
        final MessagingContext honestSide;
        final EngineConfig engineConfig = ExchangeDemo.engineConfig(INSTRUMENTS, 2);
        final RunFlag flag = new RunFlag();
        final EngineNode engine;
        final GatewayNode gateway;
        final MarketDataNode marketData;
        /** The honest subscriber, or null where the test has none. */
        final MarketDataClient subscriber;
        /** The honest subscriber's duty cycle, or none. */
        private final IntSupplier subscriberDuty;
        private final BooleanSupplier subscriberConnected;
        final SimulatedClients members;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<Throwable> failures = new ArrayList<>();
        private Thread thread;

        Exchange(final String provider, final int backlogStep, final long rate)
        {
            this(provider, backlogStep, rate, true);
        }

        /** @param honest whether subscriber 0 is the honest one on the exchange's thread, or none (the test's). */
        Exchange(final String provider, final int backlogStep, final long rate, final boolean honest)
        {
            layout = ExchangeLayout.onFreePorts(provider, 2, 2);
            for (final String name : layout.identities())
            {
                identities.put(name, Identity.generate(name));
            }
            final MessagingContext core = context(List.of(ExchangeLayout.ENGINE, ExchangeLayout.GATEWAY,
                ExchangeLayout.MARKET_DATA), layout.identities());
            honestSide = context(List.of(layout.members().get(0), layout.members().get(1),
                layout.marketDataSubscribers().get(0)), List.of(ExchangeLayout.GATEWAY, ExchangeLayout.MARKET_DATA));
            otherSide = context(List.of(layout.marketDataSubscribers().get(1)), List.of(ExchangeLayout.MARKET_DATA));
            final GatewayConfig gatewayConfig = ExchangeDemo.gatewayConfig(2, rate, engineConfig, 0);
            final LatencyLedger ledger = new LatencyLedger();
            engine = add(new EngineNode(core, layout, directory.resolve("journal"), engineConfig, flag));
            gateway = add(new GatewayNode(core, layout, gatewayConfig, flag));
            marketData = add(new MarketDataNode(core, layout, engineConfig, flag, backlogStep));
            subscriber = honest ? add(new MarketDataClient(honestSide, layout, 0, engineConfig, ledger, flag)) : null;
            subscriberDuty = honest ? subscriber::doWork : () -> 0;
            subscriberConnected = honest ? subscriber::isConnected : () -> true;
            members = add(new SimulatedClients(honestSide, layout, gatewayConfig.sessions(), 0, INSTRUMENTS, rate, 7,
                ledger, flag));
        }

        /** Connects everything, the other subscriber by its own duty, then opens the engine and starts the thread. */
        void start(final BooleanSupplier otherConnected, final Runnable otherDuty)
        {
            await(() -> engine.isConnected() && gateway.isConnected() && gateway.clientsConnected() &&
                marketData.isConnected() && subscriberConnected.getAsBoolean() && members.isConnected() &&
                otherConnected.getAsBoolean(), "the exchange and both subscribers connected", () ->
                {
                    engine.doWork();
                    gateway.doWork();
                    marketData.doWork();
                    subscriberDuty.getAsInt();
                    members.pollOnly();
                    otherDuty.run();
                });
            engine.open();
            thread = Thread.ofPlatform().name("exchange").start(() ->
            {
                try
                {
                    while (running.get())
                    {
                        if (engine.doWork() + gateway.doWork() + marketData.doWork() + subscriberDuty.getAsInt() +
                            members.doWork() == 0)
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

        /**
         * Waits until the members trade (their logons, and the JIT's first work, come before), the
         * other subscriber taking its turns.
         */
        void awaitTrading(final Runnable otherTurn) throws InterruptedException
        {
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (members.counters().get(SimulatedClients.ACKS) == 0 && System.nanoTime() - deadline < 0)
            {
                otherTurn.run();
                Thread.sleep(5);
            }
        }

        /**
         * Stops the members, waits until every new order is acknowledged, stops the thread, and checks
         * that both members stayed logged on.
         */
        void stopTrading(final Runnable otherDuty) throws InterruptedException
        {
            final AtomicLongArray counters = members.counters();
            members.stopSending();
            await(() -> counters.get(SimulatedClients.ACKS) == counters.get(SimulatedClients.NEW_ORDERS),
                "every new order acknowledged", otherDuty);
            // An order the members' cycle was sending as they were told to stop counts after the wait
            // saw the two equal: it is awaited too.
            Thread.sleep(300);
            await(() -> counters.get(SimulatedClients.ACKS) == counters.get(SimulatedClients.NEW_ORDERS),
                "every new order acknowledged, the last one too", otherDuty);
            stopThread();
            assertTrue(failures.isEmpty(), "the exchange's thread: " + failures);
            assertEquals(counters.get(SimulatedClients.NEW_ORDERS), counters.get(SimulatedClients.ACKS));
            assertEquals(2, counters.get(SimulatedClients.LOGGED_ON), "both members stayed logged on");
        }

        void stopThread() throws InterruptedException
        {
            running.set(false);
            if (null != thread)
            {
                thread.join(10_000);
            }
        }
    }

    private MessagingContext context(final List<String> own, final List<String> trusted)
    {
        return RoleContexts.context(directory, identities, own, trusted, LIVENESS_MS, RING);
    }

    private <T extends AutoCloseable> T add(final T closeable)
    {
        closeables.add(closeable);
        return closeable;
    }

    private static void await(final BooleanSupplier condition, final String what, final Runnable duty)
    {
        RoleContexts.await(condition, WAIT, what, duty);
    }
}
