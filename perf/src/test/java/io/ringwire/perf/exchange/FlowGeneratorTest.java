package io.ringwire.perf.exchange;

import io.ringwire.exchange.engine.EngineOutput;
import io.ringwire.exchange.engine.MatchingEngine;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The matching benchmark's flow: seeded, in exchange-core's shape, and replayed by a fresh engine
 * exactly as the generator's own book took it.
 */
class FlowGeneratorTest
{
    @Test
    void theSameSeedGivesTheSameRequestsAndAnotherSeedOthers()
    {
        final RecordedFlow first = FlowGenerator.generate(3, 100, 5_000, 1);
        final RecordedFlow again = FlowGenerator.generate(3, 100, 5_000, 1);
        final RecordedFlow other = FlowGenerator.generate(3, 100, 5_000, 2);

        assertArrayEquals(first.offsets(), again.offsets());
        assertArrayEquals(bytes(first), bytes(again));
        assertFalse(Arrays.equals(bytes(first), bytes(other)));
        assertEquals(5_000, first.measured());
    }

    @Test
    void theMixAndTheBooksHaveExchangeCoresShape()
    {
        final RecordedFlow flow = FlowGenerator.generate(1, 1_000, 300_000, 1);
        final String mix = mix(flow);

        // exchange-core's README: 9% GTC, 3% IOC, 6% cancel, 82% move; ~1000 orders on ~750 levels.
        assertInRange(flow.share(RequestKind.NEW_GTC), 0.07, 0.11, "new GTC", mix);
        assertInRange(flow.share(RequestKind.NEW_IOC), 0.02, 0.04, "new IOC", mix);
        assertInRange(flow.share(RequestKind.CANCEL), 0.04, 0.08, "cancel", mix);
        assertInRange(flow.share(RequestKind.MOVE), 0.78, 0.86, "move", mix);
        assertInRange(flow.restingPerBook(), 900, 1_100, "resting orders per book", mix);
        assertInRange(flow.levelsPerBook(), 500, 1_000, "price levels per book", mix);
        assertInRange(flow.tradingShare(RequestKind.NEW_IOC), 0.99, 1, "IOCs that trade", mix);
        assertEquals(0, flow.tradingShare(RequestKind.CANCEL), mix);
    }

    @Test
    void aReplayOnAFreshEngineRefusesNothingAndLeavesTheGeneratorsBooks()
    {
        final RecordedFlow flow = FlowGenerator.generate(4, 200, 20_000, 3);
        final EngineReplay replay = new EngineReplay(flow);
        final MatchingEngine engine = replay.freshEngine(EngineOutput.NONE);

        replay.backToBack(engine);

        assertEquals(flow.count(), engine.counters().applied());
        assertTrue(engine.counters().trades() > 0, "the flow trades");
        final String digest = replay.verify(engine, null);
        final MatchingEngine second = replay.freshEngine(EngineOutput.NONE);
        replay.backToBack(second);
        assertEquals(digest, replay.verify(second, digest));
    }

    @Test
    void picksComeFromTheOldestLiveOrdersAndADeadOneIsReplacedByTheOldestWaiting()
    {
        final OldestOrders live = new OldestOrders(2);
        final int orders = OldestOrders.WINDOW + 100;
        for (int handle = 1; handle <= orders; handle++)
        {
            live.add(0, handle);
        }
        live.add(1, orders + 1);
        live.remove(0, 600);
        live.remove(0, 7);

        assertEquals(orders - 2, live.size(0));
        assertEquals(1, live.size(1));
        final Set<Integer> picked = new HashSet<>();
        final SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < 100_000; i++)
        {
            picked.add(live.pick(0, random));
        }
        final Set<Integer> oldest = new HashSet<>();
        for (int handle = 1; handle <= OldestOrders.WINDOW + 1; handle++)
        {
            oldest.add(handle);
        }
        oldest.remove(7);
        assertEquals(oldest, picked, "the 512 oldest live: 1 to 513 but 7");
        assertNotEquals(7, live.pick(0, random));
        assertEquals(orders + 1, live.pick(1, random));
    }

    private static void assertInRange(final double value, final double low, final double high, final String what,
        final String mix)
    {
        assertTrue(value >= low && value <= high, what + " " + value + " not in [" + low + ", " + high + "]; " + mix);
    }

    private static String mix(final RecordedFlow flow)
    {
        final StringBuilder text = new StringBuilder();
        for (final RequestKind kind : RequestKind.ALL)
        {
            text.append(kind.label()).append(' ').append(flow.share(kind)).append(", ");
        }
        for (final RequestKind kind : RequestKind.ALL)
        {
            text.append(kind.label()).append(" trading ").append(flow.tradingShare(kind)).append(", ");
        }
        return text.append("resting ").append(flow.restingPerBook()).append(", levels ").append(flow.levelsPerBook())
            .toString();
    }

    private static byte[] bytes(final RecordedFlow flow)
    {
        final byte[] bytes = new byte[flow.offsets()[flow.count()]];
        flow.requests().getBytes(0, bytes);
        return bytes;
    }
}
