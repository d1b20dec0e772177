package io.ringwire.exchange.demo;

import io.ringwire.exchange.config.ConfigFile;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code ringwire demo}'s command line.
 *
 * @param provider    shm (the embedded default), socket, roce or ibverbs.
 * @param seconds     how long to run; 0 runs until Ctrl-C.
 * @param clients     simulated trading clients, each a session of its own.
 * @param instruments instruments traded.
 * @param rate        orders a second offered over all clients.
 * @param processes   each role in a JVM of its own.
 * @param journal     the engine's journal directory; null for a temporary one removed at exit.
 * @param seed        the flow's seed.
 * @param help        print the usage and exit.
 * @param fixClients  simulated members trading through the gateway's FIX door, beside the clients.
 */
public record DemoOptions(String provider, int seconds, int clients, int instruments, long rate, boolean processes,
    Path journal, long seed, boolean help, int fixClients)
{
    /** A FIX member's orders a second at most: QuickFIX/J's path stands beside the SBE door, not as its load. */
    public static final long MAX_FIX_CLIENT_RATE = 2_000;

    /** Providers the demo runs on. */
    public static final List<String> PROVIDERS = List.of("shm", "socket", "roce", "ibverbs");

    /**
     * @return the usage text.
     */
    public static String usage()
    {
        return """
            usage: ringwire demo [--provider shm|socket|roce|ibverbs] [--seconds N] [--clients N]
                                 [--instruments N] [--rate ORDERS_PER_S] [--processes] [--journal DIR]
                                 [--seed N] [--fix-clients N]

            Runs the sample exchange: the matching engine with its journal, the gateway, the market-data
            service and simulated clients, every hop over RingWire messaging on the provider picked.
            Prints a progress line every second and a summary at the end.

              --provider P       transport for every hop (default shm, the embedded one)
              --seconds N        run time; 0 runs until Ctrl-C (default 10)
              --clients N        trading clients, 1 to 64 (default 4)
              --instruments N    instruments, 1 to 10000 (default 10)
              --rate R           orders a second offered over all clients, 1 to 10000000 (default 50000)
              --processes        each role in its own JVM (default: one process, a thread per role)
              --journal DIR      keep the engine's journal in DIR (default: a temporary one, removed)
              --seed N           the flow's seed (default 1)
              --fix-clients N    also N members trading through the gateway's FIX 4.4 door (QuickFIX/J
                                 initiators), each at the clients' per-client rate up to 2000/s, 0 to 16
                                 (default 0; one process only)

            exit codes: 0 done, 1 the run failed, 2 bad command line
            """;
    }

    /**
     * @param args the command line after {@code demo}.
     * @return the options.
     * @throws IllegalArgumentException naming the bad argument.
     */
    public static DemoOptions parse(final String[] args)
    {
        String provider = "shm";
        int seconds = 10;
        int clients = 4;
        int instruments = 10;
        long rate = 50_000;
        boolean processes = false;
        Path journal = null;
        long seed = 1;
        int fixClients = 0;
        final Set<String> given = new HashSet<>();
        for (int i = 0; i < args.length; i++)
        {
            final String arg = args[i];
            if (arg.startsWith("--") && !given.add(arg))
            {
                throw new IllegalArgumentException(arg + " is given twice");
            }
            switch (arg)
            {
                case "--help", "-h" ->
                {
                    return new DemoOptions(provider, seconds, clients, instruments, rate, processes, journal, seed, true,
                        fixClients);
                }
                case "--processes" -> processes = true;
                case "--provider" ->
                {
                    provider = value(args, i++, arg);
                    if (!PROVIDERS.contains(provider))
                    {
                        throw new IllegalArgumentException("--provider must be one of " + PROVIDERS + ", not '" +
                            provider + "'");
                    }
                }
                case "--seconds" -> seconds = (int)number(args, i++, arg, 0, 1_000_000);
                case "--clients" -> clients = (int)number(args, i++, arg, 1, 64);
                case "--instruments" -> instruments = (int)number(args, i++, arg, 1, 10_000);
                case "--rate" -> rate = number(args, i++, arg, 1, 10_000_000);
                case "--seed" -> seed = number(args, i++, arg, Long.MIN_VALUE, Long.MAX_VALUE);
                case "--journal" -> journal = Path.of(value(args, i++, arg));
                case "--fix-clients" -> fixClients = (int)number(args, i++, arg, 0, 16);
                default -> throw new IllegalArgumentException("unknown argument '" + arg + "'");
            }
        }
        if (null != journal && journal.toString().isBlank())
        {
            throw new IllegalArgumentException("--journal needs a directory, not a blank");
        }
        if (processes && null != journal && !ConfigFile.readsBack(journal.toString()))
        {
            throw new IllegalArgumentException("--journal '" + journal + "' cannot go into the engine's role " +
                "file (a line break, white space at an end or a '#' after white space would not read back): " +
                "name another directory");
        }
        if (processes && fixClients > 0)
        {
            throw new IllegalArgumentException("--fix-clients runs in one process; leave out --processes");
        }
        return new DemoOptions(provider, seconds, clients, instruments, rate, processes, journal, seed, false,
            fixClients);
    }

    private static String value(final String[] args, final int index, final String name)
    {
        if (index + 1 >= args.length || args[index + 1].startsWith("--"))
        {
            throw new IllegalArgumentException(name + " needs a value");
        }
        return args[index + 1];
    }

    private static long number(final String[] args, final int index, final String name, final long min,
        final long max)
    {
        final String text = value(args, index, name);
        final long parsed;
        try
        {
            parsed = Long.parseLong(text.replace("_", ""));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(name + " needs a whole number, not '" + text + "'");
        }
        if (parsed < min || parsed > max)
        {
            throw new IllegalArgumentException(name + " must be " + min + " to " + max + ", not " + parsed);
        }
        return parsed;
    }
}
