package io.ringwire.exchange;

import io.ringwire.exchange.engine.JournaledEngine;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code ringwire exchange}: the sample exchange's tools.
 * <ul>
 *   <li>{@code exchange replay --journal DIR}: recomputes the engine's output from its journal alone
 *       and prints the digest the engine reported for the same records, and the digest of the books
 *       it ends with.</li>
 * </ul>
 * Exit codes: 0 done, 1 the journal cannot be replayed (damaged before its end, unreadable), 2 bad
 * command line.
 */
public final class ExchangeMain
{
    private ExchangeMain()
    {
    }

    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * @return the exit code.
     */
    static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        if (args.length == 0 || "--help".equals(args[0]) || "-h".equals(args[0]))
        {
            usage(args.length == 0 ? err : out);
            return args.length == 0 ? 2 : 0;
        }
        if (!"replay".equals(args[0]))
        {
            err.println("ringwire exchange: unknown command '" + args[0] + "'");
            usage(err);
            return 2;
        }
        Path journal = null;
        for (int i = 1; i < args.length; i++)
        {
            if ("--journal".equals(args[i]) && i + 1 < args.length)
            {
                journal = Path.of(args[++i]);
            }
            else
            {
                err.println("ringwire exchange replay: unexpected argument '" + args[i] + "'");
                usage(err);
                return 2;
            }
        }
        if (null == journal)
        {
            err.println("ringwire exchange replay: --journal DIR is required");
            return 2;
        }
        if (!Files.isDirectory(journal))
        {
            err.println("ringwire exchange replay: " + journal + " is not a directory");
            return 2;
        }
        try
        {
            final JournaledEngine.Replay replay = JournaledEngine.replay(journal);
            out.println("journal " + journal + ": " + replay.records() + " records replayed" +
                (null != replay.read() && replay.read().tornTail() ? "; torn last record not applied: " +
                    replay.read().damage().message() : ""));
            out.println("digest " + replay.digest());
            out.println("books " + replay.booksDigest());
            return 0;
        }
        catch (final IllegalStateException | IllegalArgumentException | UncheckedIOException ex)
        {
            err.println("ringwire exchange replay: " + ex.getMessage());
            return 1;
        }
    }

    private static void usage(final PrintStream out)
    {
        out.println("usage: ringwire exchange replay --journal DIR");
        out.println();
        out.println("  replay   recompute the matching engine's output from its journal alone and print the");
        out.println("           digest of everything it sent (the engine prints the same one) and of its books");
        out.println();
        out.println("exit codes: 0 done, 1 the journal cannot be replayed, 2 bad command line");
    }
}
