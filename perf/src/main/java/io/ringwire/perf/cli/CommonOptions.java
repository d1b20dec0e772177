package io.ringwire.perf.cli;

import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.config.Settings;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The options {@code rtt}, {@code oneway}, {@code throughput}, {@code compare} and {@code path}
 * share, read in one place so that each has one name, one range and one refusal in every command. A
 * command first says which of them it takes and with what default and range ({@code with...}), then
 * offers every option of its line to {@link #take}, which consumes the ones it was told of and
 * leaves the command's own to it.
 *
 * <p>Threading: one thread, one command line.
 */
public final class CommonOptions
{
    /** Bytes per message unless {@code --size} says otherwise. */
    public static final int DEFAULT_SIZE = 32;
    /** Measured messages or round trips of rtt and oneway unless {@code --messages} says otherwise. */
    public static final long DEFAULT_MESSAGES = 1_000_000;
    /** Unmeasured messages or round trips first of rtt and oneway unless {@code --warmup} says otherwise. */
    public static final long DEFAULT_WARMUP = 100_000;
    /** Most messages or round trips {@code --messages} and {@code --warmup} take. */
    public static final long MAX_MESSAGES = 1_000_000_000L;
    /** Highest {@code --rate}: one message a nanosecond is already beyond any transport here. */
    public static final long MAX_RATE = 1_000_000_000L;
    /** Most rounds {@code --rounds} takes. */
    public static final int MAX_ROUNDS = 100;

    /** The options {@link #with} takes. */
    private static final Set<String> PLAIN = Set.of("--allow-oversubscribe", "--rate", "--processes");

    private final String countUnit;
    private final Set<String> taken = new HashSet<>();

    private List<String> allowedProviders = List.of();
    private String providerProblem;
    private String providerExample;
    private boolean oneProvider;
    private boolean messagingOnly;
    private int minSize;
    private int maxSize;
    private String outExample;

    private boolean json;
    private boolean allowOversubscribe;
    private String shmDirectory = defaultShmDirectory();
    private String out;
    private List<String> providers = List.of();
    private boolean providersGiven;
    private String api = Transports.API_MESSAGING;
    private int size = DEFAULT_SIZE;
    private long messages;
    private long warmup;
    private long rate;
    private int processes = 1;
    private int rounds = 1;

    /**
     * Takes {@code --json}, {@code --shm-dir} and nothing else until told more.
     *
     * @param countUnit what {@code --messages} and {@code --warmup} count, for their refusals
     *                  ("round trips", "messages").
     */
    public CommonOptions(final String countUnit)
    {
        this.countUnit = countUnit;
        taken.add("--json");
        taken.add("--shm-dir");
    }

    /**
     * @return the shm provider's directory unless {@code --shm-dir} says otherwise.
     */
    public static String defaultShmDirectory()
    {
        return new RdmaConfig().shmDirectory().toString();
    }

    /**
     * Takes options that need no default or range from the command: {@code --allow-oversubscribe},
     * {@code --rate R} (messages per second; 0, a closed loop, without it) and {@code --processes 1|2}
     * (1 without it).
     *
     * @param options their names.
     * @return this.
     * @throws IllegalArgumentException for a name that is not one of them.
     */
    public CommonOptions with(final String... options)
    {
        for (final String option : options)
        {
            if (!PLAIN.contains(option))
            {
                throw new IllegalArgumentException(option + " is not one of " + PLAIN);
            }
            taken.add(option);
        }
        return this;
    }

    /**
     * Takes {@code --out DIR}; no directory by default (the command then picks one when it ends).
     *
     * @param example a directory, for the refusal of a blank one.
     * @return this.
     */
    public CommonOptions withOut(final String example)
    {
        taken.add("--out");
        outExample = example;
        return this;
    }

    /**
     * Takes {@code --provider} (and {@code --providers}): a comma list, each name at most once.
     *
     * @param defaults the list without the option.
     * @param allowed  the names allowed.
     * @param problem  what a name not allowed is, for its refusal ("is not a transport").
     * @param example  a valid list, for that refusal.
     * @return this.
     */
    public CommonOptions withProviders(final List<String> defaults, final List<String> allowed, final String problem,
        final String example)
    {
        taken.add("--provider");
        taken.add("--providers");
        providers = List.copyOf(defaults);
        allowedProviders = allowed;
        providerProblem = problem;
        providerExample = example;
        return this;
    }

    /**
     * Takes {@code --provider} naming exactly one transport.
     *
     * @param defaultProvider the transport without the option.
     * @param allowed         the names allowed.
     * @return this.
     */
    public CommonOptions withOneProvider(final String defaultProvider, final List<String> allowed)
    {
        taken.add("--provider");
        providers = List.of(defaultProvider);
        allowedProviders = allowed;
        providerProblem = "is not a transport";
        providerExample = defaultProvider;
        oneProvider = true;
        return this;
    }

    /**
     * Takes {@code --api}: every path ({@link Transports#ALLOWED_APIS}), or messaging only, where the
     * channel is refused by name until the command measures it, so a user learns that rather than
     * getting messaging's numbers.
     *
     * @param allowed    {@link Transports#ALLOWED_APIS}, or {@link Transports#API_MESSAGING} alone.
     * @param defaultApi the path without the option.
     * @return this.
     */
    public CommonOptions withApi(final List<String> allowed, final String defaultApi)
    {
        taken.add("--api");
        messagingOnly = !allowed.contains(Transports.API_CHANNEL);
        api = defaultApi;
        return this;
    }

    /**
     * Takes {@code --size BYTES}, {@link #DEFAULT_SIZE} by default.
     *
     * @param min the smallest allowed.
     * @param max the largest allowed.
     * @return this.
     */
    public CommonOptions withSize(final int min, final int max)
    {
        taken.add("--size");
        minSize = min;
        maxSize = max;
        return this;
    }

    /**
     * Takes {@code --messages N} and {@code --warmup N}.
     *
     * @param defaultMessages measured messages without the option.
     * @param defaultWarmup   unmeasured messages first without the option.
     * @return this.
     */
    public CommonOptions withCounts(final long defaultMessages, final long defaultWarmup)
    {
        taken.add("--messages");
        taken.add("--warmup");
        messages = defaultMessages;
        warmup = defaultWarmup;
        return this;
    }

    /**
     * Takes {@code --rounds N}.
     *
     * @param defaultRounds rounds without the option.
     * @return this.
     */
    public CommonOptions withRounds(final int defaultRounds)
    {
        taken.add("--rounds");
        rounds = defaultRounds;
        return this;
    }

    /**
     * Reads a command line made only of shared options.
     *
     * @param args    the arguments after the command's name.
     * @param allowed the options the command takes, for the refusal of another one.
     * @return what they say, defaults where they said nothing.
     * @throws UsageException naming an option not taken, or one whose value is not allowed.
     */
    public Values parse(final String[] args, final String allowed)
    {
        final OptionReader option = new OptionReader(args);
        while (option.next())
        {
            if (!take(option))
            {
                throw option.unknown(allowed);
            }
        }
        return values(option);
    }

    /**
     * Reads the reader's current option when it is one of those this command shares.
     *
     * @param option at an option.
     * @return whether it was one of them, and is now read (with its value).
     * @throws UsageException when it is one of them and its value is not allowed.
     */
    public boolean take(final OptionReader option)
    {
        final String name = option.name();
        if (!taken.contains(name))
        {
            return false;
        }
        switch (name)
        {
            case "--json" -> json = option.flag();
            case "--allow-oversubscribe" -> allowOversubscribe = option.flag();
            case "--shm-dir" -> shmDirectory = option.directory("/dev/shm/ringwire");
            case "--out" -> out = option.outputDirectory(outExample);
            case "--provider", "--providers" ->
            {
                if (providersGiven)
                {
                    throw new UsageException("--provider and --providers are one option: give it once");
                }
                providersGiven = true;
                providers = readProviders(option);
            }
            case "--api" -> api = messagingOnly ? readMessagingApi(option) : readApi(option);
            case "--size" -> size = option.intNumber("bytes", minSize, maxSize, "bytes");
            case "--messages" -> messages = option.number("a count", 1, MAX_MESSAGES, countUnit);
            case "--warmup" -> warmup = option.number("a count", 0, MAX_MESSAGES, countUnit);
            case "--rate" -> rate = option.number("messages per second", 1, MAX_RATE, "messages per second");
            case "--processes" -> processes = readProcesses(option);
            case "--rounds" -> rounds = option.intNumber("a count", 1, MAX_ROUNDS, "rounds");
            default -> throw new IllegalStateException(name + " is taken but not read");
        }
        return true;
    }

    private List<String> readProviders(final OptionReader option)
    {
        final List<String> names = option.names(allowedProviders, providerProblem, providerExample);
        if (oneProvider && names.size() != 1)
        {
            throw new UsageException("--provider takes one transport for throughput, got " + names);
        }
        return names;
    }

    private static String readApi(final OptionReader option)
    {
        final String value = option.value(String.join("|", Transports.ALLOWED_APIS));
        final String api = value.trim().toLowerCase(Locale.ROOT);
        if (!Transports.ALLOWED_APIS.contains(api))
        {
            throw new UsageException(Settings.invalid("--api", value, "is not allowed", "messaging (Publication " +
                "and Subscription with SBE LatencyProbe messages), channel (bare WRITE WITH IMMEDIATE) or both")
                .getMessage());
        }
        return api;
    }

    private static String readMessagingApi(final OptionReader option)
    {
        final String value = option.value(Transports.API_MESSAGING).trim().toLowerCase(Locale.ROOT);
        if (Transports.API_MESSAGING.equals(value))
        {
            return value;
        }
        if (Transports.API_CHANNEL.equals(value))
        {
            throw new UsageException("--api channel is not measured one-way yet; allowed: messaging");
        }
        throw new UsageException("--api '" + value + "' is not allowed; allowed: messaging");
    }

    private static int readProcesses(final OptionReader option)
    {
        final String value = option.value("1 or 2");
        return switch (value.trim())
        {
            case "1" -> 1;
            case "2" -> 2;
            default -> throw new UsageException(Settings.invalid("--processes", value, "is not allowed", "1 (pinger " +
                "and ponger threads in one JVM) or 2 (ponger in a child JVM)").getMessage());
        };
    }

    /**
     * @param option the reader of the whole command line, read to its end.
     * @return what the options read say, defaults where they said nothing.
     */
    public Values values(final OptionReader option)
    {
        return new Values(json, allowOversubscribe, shmDirectory, out, providers, api, size, messages, warmup, rate,
            processes, rounds, option.helpAsked());
    }

    /**
     * The shared options of one command line, as read.
     *
     * @param json               {@code --json}: print JSON instead of the table.
     * @param allowOversubscribe {@code --allow-oversubscribe}: run with fewer CPUs than spinning threads.
     * @param shmDirectory       {@code --shm-dir}: the shm provider's directory.
     * @param out                {@code --out}: the results directory, or null for the default.
     * @param providers          {@code --provider}: the transports, in the order given.
     * @param api                {@code --api}: messaging, channel or both.
     * @param size               {@code --size}: bytes per message.
     * @param messages           {@code --messages}: measured messages or round trips.
     * @param warmup             {@code --warmup}: unmeasured messages or round trips first.
     * @param rate               {@code --rate}: messages due per second, or 0 for a closed loop.
     * @param processes          {@code --processes}: 1 or 2.
     * @param rounds             {@code --rounds}.
     * @param help               {@code --help} or {@code -h}: print the usage and nothing else.
     */
    public record Values(boolean json, boolean allowOversubscribe, String shmDirectory, String out,
        List<String> providers, String api, int size, long messages, long warmup, long rate, int processes, int rounds,
        boolean help)
    {
        /**
         * @return the one transport of a command that takes one.
         */
        public String provider()
        {
            return providers.getFirst();
        }
    }
}
