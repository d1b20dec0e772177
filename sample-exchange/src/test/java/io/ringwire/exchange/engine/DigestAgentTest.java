package io.ringwire.exchange.engine;

import io.ringwire.codecs.trading.EngineCommandEncoder;
import io.ringwire.codecs.trading.EngineCommandType;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.exchange.flow.OrderFlow;
import io.ringwire.exchange.journal.JournalReadResult;
import io.ringwire.exchange.journal.JournalReader;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The digest agent keeps, on a thread of its own, the digest an engine keeps inline: the same
 * journal applied by an engine that feeds its digest itself and by one that hands its output to
 * the agent through a ring (small, so the engine waits on the agent now and then) reaches the same
 * values at every DIGEST command and at the end, with links at the same snapshot points, and the
 * one {@code exchange replay} prints. The engine's side of the ring allocates nothing. An agent
 * that fails leaves its digest broken, never a value that looks right, and an agent whose thread
 * died no longer holds the engine on a full ring.
 */
class DigestAgentTest
{
    private static final int REQUESTS = 60_000;
    private static final int COMMAND_EVERY = 7_000;

    @TempDir
    Path directory;

    private final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(256));

    @Test
    void theDigestAgentReachesTheInlineDigestOnTheSameJournal() throws Exception
    {
        final OrderFlow flow = new OrderFlow(26, 4, 1, 16, 10_000, 20, 1024);
        final EngineConfig config = new EngineConfig(EngineConfig.uniformInstruments(4, flow.minPrice(),
            (int)(flow.maxPrice() - flow.minPrice() + 1)), 50_000, 100, 10_000);
        final Path inlineJournal = directory.resolve("inline");
        final List<String> inlineValues = new ArrayList<>();
        final String inlineDigest;
        try (JournaledEngine inline = JournaledEngine.open(inlineJournal, config, EngineOutput.NONE, 1 << 20))
        {
            inline.onDigest(inlineValues::add);
            for (int i = 1; i <= REQUESTS; i++)
            {
                final int length = i % COMMAND_EVERY == 0 ? command(i % (2 * COMMAND_EVERY) == 0 ?
                    EngineCommandType.SNAPSHOT : EngineCommandType.DIGEST) : flow.next(request, 0);
                assertTrue(inline.accept(request, 0, length) > 0, "request " + i);
            }
            inlineDigest = inline.digest();
        }

        final JournaledEngine live = JournaledEngine.recover(directory.resolve("live"), config, EngineOutput.NONE,
            false);
        final List<String> agentValues = new CopyOnWriteArrayList<>();
        live.onDigest(agentValues::add);
        final DigestRing ring = new DigestRing(1 << 12);
        live.engine().feedDigest(ring);
        final DigestAgent agent = new DigestAgent(ring, live.engine().digest());
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AgentRunner runner = new AgentRunner(new BackoffIdleStrategy(), failure::set, null, agent);
        AgentRunner.startOnThread(runner);
        final JournalReadResult read = new JournalReader(inlineJournal).readAll((sequence, buffer, offset, length) ->
            live.applyJournaled(buffer, offset, length));
        runner.close();
        final String agentDigest = agent.drain().value();

        assertNull(failure.get(), "the agent failed");
        assertEquals(REQUESTS, read.recordsDelivered());
        assertEquals(inlineValues.subList(0, inlineValues.size() - 1), agentValues, "the values at DIGEST commands");
        assertEquals(inlineDigest, agentDigest);
        assertEquals(inlineDigest, JournaledEngine.replay(inlineJournal).digest());
        assertEquals(REQUESTS / config.snapshotInterval() + REQUESTS / (2 * COMMAND_EVERY), agent.links(),
            "links at every interval and every SNAPSHOT command");
        assertTrue(ring.fullWaits() > 0, "the small ring made the engine wait for the agent");
    }

    @Test
    void feedingTheRingAllocatesNothing()
    {
        final DigestRing ring = new DigestRing(1 << 16);
        final DigestAgent agent = new DigestAgent(ring, new OutputDigest());
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 256; i++)
        {
            request.putLong(0, i);
        }
        long smallest = Long.MAX_VALUE;
        for (int window = 0; window < 5 && smallest > 0; window++)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 200_000; i++)
            {
                ring.update(request, 0, 64 + (i & 63));
                if ((i & 255) == 0)
                {
                    ring.link(i);
                    agent.doWork();
                }
            }
            agent.drain();
            smallest = Math.min(smallest, threads.getCurrentThreadAllocatedBytes() - before);
        }
        assertEquals(0, smallest, "bytes allocated by the ring and the agent in the quietest window");
    }

    @Test
    void anAgentWhoseThreadDiedOfAnErrorNoLongerHoldsTheEngine() throws Exception
    {
        final Error death = new Error("the digest's thread dies");
        final DigestRing ring = new DigestRing(1 << 12);
        final OutputDigest digest = new OutputDigest();
        digest.onValue(value -> { throw death; });
        final DigestAgent agent = new DigestAgent(ring, digest);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AgentRunner runner = new AgentRunner(new BackoffIdleStrategy(), failure::set, null, agent);
        final Thread thread = AgentRunner.startOnThread(runner, task ->
        {
            final Thread quiet = new Thread(task);
            quiet.setUncaughtExceptionHandler((dead, ex) -> { }); // the death is the test's own
            return quiet;
        });
        try
        {
            ring.valueRequested();
            thread.join(10_000);
            assertFalse(thread.isAlive(), "the Error ended the agent's thread");
            // The ring holds 4 KiB; the engine writes on well past it, as it would with no reader.
            assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
            {
                for (int i = 0; i < 10_000; i++)
                {
                    ring.update(request, 0, 128);
                }
            }, "the engine's writes return once the ring is full");
        }
        finally
        {
            runner.close();
        }
        assertSame(death, failure.get());
        assertTrue(ring.abandoned());
        assertTrue(ring.dropped() > 9_000, "writes past the full ring dropped: " + ring.dropped());
        assertEquals(OutputDigest.BROKEN, agent.drain().value(), "the digest says it missed output");
    }

    @Test
    void aMessageThatFailsOnTheAgentLeavesTheDigestBroken()
    {
        final DigestRing ring = new DigestRing(1 << 12);
        final OutputDigest digest = new OutputDigest();
        final DigestAgent agent = new DigestAgent(ring, digest);
        ring.update(request, 0, 64);
        ring.ring().write(99, request, 0, 8); // not a digest ring message: it fails, and leaves the ring
        ring.update(request, 0, 64);
        assertThrows(IllegalStateException.class, agent::doWork);
        agent.doWork(); // the agent goes on
        assertEquals(OutputDigest.BROKEN, agent.drain().value(), "the digest says it missed output");
        assertTrue(ring.abandoned());
    }

    @Test
    void aValueListenerThatFailsLeavesTheDigestWhole()
    {
        final DigestRing ring = new DigestRing(1 << 12);
        final OutputDigest digest = new OutputDigest();
        final List<String> values = new ArrayList<>();
        digest.onValue(value ->
        {
            values.add(value);
            if (values.size() == 1)
            {
                throw new IllegalStateException("the listener fails once");
            }
        });
        final DigestAgent agent = new DigestAgent(ring, digest);
        ring.update(request, 0, 64);
        ring.valueRequested();
        ring.update(request, 0, 64);
        ring.valueRequested();
        assertThrows(IllegalStateException.class, agent::doWork);
        agent.doWork();

        final OutputDigest inline = new OutputDigest();
        inline.update(request, 0, 64);
        final String first = inline.value();
        inline.update(request, 0, 64);
        assertEquals(List.of(first, inline.value()), values, "both values told, the second after the failure");
        assertEquals(inline.value(), agent.drain().value(), "nothing missed: the digest stays whole");
        assertFalse(ring.abandoned());
    }

    private int command(final EngineCommandType type)
    {
        final EngineCommandEncoder encoder = new EngineCommandEncoder();
        encoder.wrapAndApplyHeader(request, 0, new MessageHeaderEncoder()).command(type).sendingTime(1).receiveTime(1);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }
}
