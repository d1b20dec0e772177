package io.ringwire.exchange.engine;

import java.nio.file.Path;

/**
 * The child of {@link EngineLockTest}: tries to take the engine's lock on a journal directory, as a
 * second engine in another process would, and prints {@code TAKEN} or {@code REFUSED}.
 *
 * <p>Arguments: journal directory.
 */
final class EngineLockProbe
{
    private EngineLockProbe()
    {
    }

    public static void main(final String[] args)
    {
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
