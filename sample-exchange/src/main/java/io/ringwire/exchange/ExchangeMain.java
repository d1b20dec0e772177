package io.ringwire.exchange;

import io.ringwire.exchange.config.RoleConfig;
import io.ringwire.exchange.demo.RoleMain;
import io.ringwire.exchange.engine.JournaledEngine;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * {@code ringwire exchange}: the sample exchange's roles and tools.
 * <ul>
 *   <li>{@code exchange engine|gateway|marketdata|clients --config FILE}: runs one role from its
 *       config file (see {@code RoleFiles} for the keys), host by host; see {@code RoleMain}.</li>
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
     * Runs a role after checking that its config file names the same role.
     */
    private static int runRole(final String[] args, final PrintStream out, final PrintStream err)
    {
        final String[] rest = Arrays.copyOfRange(args, 1, args.length);
        if (rest.length != 2 || !"--config".equals(rest[0]))
        {
            err.println("ringwire exchange " + args[0] + ": --config FILE is required");
            usage(err);
            return 2;
        }
        try
        {
            final RoleConfig config = RoleConfig.read(Path.of(rest[1]));
            if (!config.role().equals(args[0]))
            {
                err.println("ringwire exchange " + args[0] + ": " + rest[1] + " is the config of the " + config.role() +
                    " role");
                return 2;
            }
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("ringwire exchange " + args[0] + ": " + ex.getMessage());
            return 2;
        }
        return RoleMain.run(rest, out, err);
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
        if (RoleConfig.ROLES.contains(args[0]))
        {
            return runRole(args, out, err);
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
                if (args[i + 1].isBlank())
                {
                    err.println("ringwire exchange replay: --journal needs a directory, not a blank");
                    return 2;
                }
                if (null != journal)
                {
                    // Refused, not settled by which came last: the digest printed would be another journal's.
                    err.println("ringwire exchange replay: --journal is given twice");
                    return 2;
                }
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
        out.println("usage: ringwire exchange engine|gateway|marketdata|clients --config FILE");
        out.println("       ringwire exchange replay --journal DIR");
        out.println();
        out.println("  engine, gateway, marketdata, clients");
        out.println("           run one role of the sample exchange from its config file: provider, identity key,");
        out.println("           trusted public keys, endpoints, sessions, instruments, limits, cores; it prints");
        out.println("           READY when connected and a REPORT when stopped (a 'stop' line, or SIGTERM)");
        out.println("  replay   recompute the matching engine's output from its journal alone and print the");
        out.println("           digest of everything it sent (the engine prints the same one) and of its books");
        out.println();
        out.println("exit codes: 0 done, 1 the role failed or the journal cannot be replayed, 2 bad command line or config");
    }
}
