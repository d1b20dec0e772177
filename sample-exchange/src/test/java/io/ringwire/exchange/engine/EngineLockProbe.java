package io.ringwire.exchange.engine;

import java.nio.file.Path;

/**
 * The child of {@link EngineLockTest}: tries to take the engine's lock on a journal directory, as a
 * second engine in another process would, and prints {@code TAKEN} or {@code REFUSED}; or replays
 * the journal, as {@code exchange replay} would, and prints {@code REPLAYED} or {@code REFUSED}.
 *
 * <p>Arguments: journal directory, then {@code replay} for the replay.
 */
final class EngineLockProbe
{
    private EngineLockProbe()
    {
    }

    public static void main(final String[] args)
    {
        if (args.length > 1 && "replay".equals(args[1]))
        {
            try
            {
                System.out.println("REPLAYED " + JournaledEngine.replay(Path.of(args[0])).records());
            }
            catch (final IllegalStateException ex)
            {
                System.out.println("REFUSED " + ex.getMessage());
            }
            return;
        }
        try (EngineLock ignored = EngineLock.take(Path.of(args[0])))
        {
            System.out.println("TAKEN");
        }
        catch (final IllegalStateException ex)
        {
            System.out.println("REFUSED " + ex.getMessage());
        }
    }
}
