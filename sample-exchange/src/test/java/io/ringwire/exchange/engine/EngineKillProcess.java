package io.ringwire.exchange.engine;

import io.ringwire.exchange.flow.OrderFlow;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * A journaled engine process for the kill tests: opens (recovering) the engine in a journal
 * directory, resumes the seeded flow where the journal ends, and feeds it up to a total. Prints
 * {@code READY applied=N} once recovered, {@code APPLIED N} every {@value #REPORT_EVERY} requests
 * (after the request was journaled and applied), and at the end {@code DONE applied=N digest=HEX
 * books=HEX}.
 *
 * <p>Arguments: journal directory, seed, total requests, snapshot interval.
 */
public final class EngineKillProcess
{
    static final int REPORT_EVERY = 5_000;
    static final int INSTRUMENTS = 8;

    private EngineKillProcess()
    {
    }

    static OrderFlow flow(final long seed)
    {
        return new OrderFlow(seed, INSTRUMENTS, 1, 30, 10_000, 40, 4096);
    }

    static EngineConfig config(final OrderFlow flow, final long snapshotInterval)
    {
        return new EngineConfig(EngineConfig.uniformInstruments(INSTRUMENTS, flow.minPrice(),
            (int)(flow.maxPrice() - flow.minPrice() + 1)), 100_000, 100, snapshotInterval);
    }

    public static void main(final String[] args)
    {
        final Path directory = Path.of(args[0]);
        final long seed = Long.parseLong(args[1]);
        final long total = Long.parseLong(args[2]);
        final long snapshotInterval = Long.parseLong(args[3]);
        final OrderFlow flow = flow(seed);
        final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        try (JournaledEngine engine = JournaledEngine.open(directory, config(flow, snapshotInterval), EngineOutput.NONE,
            1 << 20))
        {
            System.out.println("READY applied=" + engine.applied());
            System.out.flush();
            flow.skip(engine.applied(), request);
            while (engine.applied() < total)
            {
                final int result = engine.accept(request, 0, flow.next(request, 0));
                if (result < 0)
                {
                    System.out.println("FAIL accept returned " + result + " at " + engine.applied());
                    System.exit(1);
                }
                if (engine.applied() % REPORT_EVERY == 0)
                {
                    System.out.println("APPLIED " + engine.applied());
                    System.out.flush();
                }
            }
            System.out.println("DONE applied=" + engine.applied() + " digest=" + engine.digest() + " books=" +
                engine.engine().booksDigest());
            System.out.flush();
        }
    }
}
