package io.ringwire.exchange.journal;

/**
 * The child of {@link JournalLockTest}: tries to open the journal for appending, as a second writer
 * in another process would, and prints {@code OPENED} or {@code REFUSED}.
 *
 * <p>Arguments: journal directory.
 */
final class JournalLockProbe
{
    private JournalLockProbe()
    {
    }

    public static void main(final String[] args)
    {
        try (Journal ignored = Journal.open(new JournalContext().directory(java.nio.file.Path.of(args[0])).conclude()))
        {
            System.out.println("OPENED");
        }
        catch (final IllegalStateException ex)
        {
            System.out.println("REFUSED " + ex.getMessage());
        }
    }
}
