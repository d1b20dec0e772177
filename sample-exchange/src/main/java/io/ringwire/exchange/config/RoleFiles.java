package io.ringwire.exchange.config;

import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.gateway.GatewayConfig;
import io.ringwire.exchange.gateway.SessionConfig;
import io.ringwire.exchange.gateway.TransportLimits;
import io.ringwire.exchange.node.ExchangeLayout;
import io.ringwire.rdma.cm.Identity;
import io.ringwire.rdma.cm.KeyFiles;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The keys of a role's config file, and the writer of a run's files: a directory of identity keys
 * (one per role, member and market-data subscriber; each role's file names its own identity and the
 * public keys of the roles it talks to) and one config file per role, as a person deploying the
 * roles host by host would write them. {@code ringwire demo --processes} and the tests run the roles
 * from such files.
 *
 * <pre>
 * role = engine | gateway | marketdata | clients
 * provider = shm | socket | roce | ibverbs
 * identity = keys/engine.key                 # the identity file(s) this process proves
 * trust = keys/gateway.pub, keys/marketdata.pub   # public keys (files or directories) it accepts
 * endpoint.orders = HOST:PORT                # the gateway's member-facing order endpoint
 * endpoint.reports = HOST:PORT               # the gateway's endpoint for the engine's reports
 * endpoint.requests = HOST:PORT              # the engine's request endpoint
 * endpoint.feed = HOST:PORT                  # the market-data service's feed endpoint
 * endpoint.snapshots = HOST:PORT             # the market-data service's snapshot-request endpoint
 * session.ID = identity NAME, account N, token T, replies HOST:PORT   # gateway: every session; clients: its own
 * subscriber.INDEX = identity NAME, endpoint HOST:PORT                # marketdata: every one; clients: its own
 * instruments = N ; price.min = P ; price.max = P ; price.reference = P (gateway)
 * max-orders, max-accounts, snapshot-interval, journal (engine), cores, shm-dir, liveness-timeout-ms
 * engine-threads = auto | none | journaller, digest, replica   # engine: work off its thread (auto: by CPUs;
 *                                                            # digest only with replica)
 * risk.max-order-quantity, risk.max-notional, risk.price-band-ticks, risk.max-open-orders (gateway)
 * rate-limit.per-second, rate-limit.burst, max-client-order-ids (gateway)
 * limits.max-connections, limits.logon-timeout-ms, limits.logons-per-second, limits.logon-burst,
 * limits.max-malformed, limits.reply-backlog-bytes, limits.reply-backlog-ms, limits.reply-log-bytes (gateway)
 * rate, seed, md-join-after-ms (clients)
 * </pre>
 */
public final class RoleFiles
{
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    static final String ROLE = "role";
    static final String PROVIDER = "provider";
    static final String IDENTITY = "identity";
    static final String TRUST = "trust";
    static final String ORDERS = "endpoint.orders";
    static final String REPORTS = "endpoint.reports";
    static final String REQUESTS = "endpoint.requests";
    static final String FEED = "endpoint.feed";
    static final String SNAPSHOTS = "endpoint.snapshots";
    static final String SESSION_PREFIX = "session.";
    static final String SUBSCRIBER_PREFIX = "subscriber.";
    static final String JOURNAL = "journal";
    static final String ENGINE_THREADS = "engine-threads";
    static final String CORES = "cores";
    static final String SHM_DIR = "shm-dir";
    static final String RATE = "rate";
    static final String SEED = "seed";
    static final String MD_JOIN_AFTER_MS = "md-join-after-ms";
    static final String LIVENESS_TIMEOUT_MS = "liveness-timeout-ms";
    static final String INSTRUMENTS = "instruments";
    static final String PRICE_MIN = "price.min";
    static final String PRICE_MAX = "price.max";
    static final String PRICE_REFERENCE = "price.reference";
    static final String MAX_ORDERS = "max-orders";
    static final String MAX_ACCOUNTS = "max-accounts";
    static final String SNAPSHOT_INTERVAL = "snapshot-interval";
    static final String RISK_MAX_QUANTITY = "risk.max-order-quantity";
    static final String RISK_MAX_NOTIONAL = "risk.max-notional";
    static final String RISK_PRICE_BAND = "risk.price-band-ticks";
    static final String RISK_MAX_OPEN_ORDERS = "risk.max-open-orders";
    static final String RATE_PER_SESSION = "rate-limit.per-second";
    static final String RATE_BURST = "rate-limit.burst";
    static final String MAX_CLIENT_ORDER_IDS = "max-client-order-ids";
    static final String MAX_CONNECTIONS = "limits.max-connections";
    static final String LOGON_TIMEOUT_MS = "limits.logon-timeout-ms";
    static final String LOGONS_PER_SECOND = "limits.logons-per-second";
    static final String LOGON_BURST = "limits.logon-burst";
    static final String MAX_MALFORMED = "limits.max-malformed";
    static final String REPLY_BACKLOG_BYTES = "limits.reply-backlog-bytes";
    static final String REPLY_BACKLOG_MS = "limits.reply-backlog-ms";
    static final String REPLY_LOG_BYTES = "limits.reply-log-bytes";
    static final String FIX_DOOR = "fix-door";
    static final String FIX_COMP_ID = "fix-comp-id";
    static final String FIX_STORE = "fix-store";

    private RoleFiles()
    {
    }

    /**
     * What a run's files say besides its layout.
     *
     * @param engine       instruments and book capacity.
     * @param gateway      the gateway's sessions (in the layout's order) and limits.
     * @param priceMin     the instruments' lowest price.
     * @param priceMax     their highest.
     * @param journal      the engine's journal directory.
     * @param shmDirectory the shm provider's directory, or null.
     * @param engineCores  the engine's CPUs ("" for none).
     * @param rate         orders a second over all clients.
     * @param seed         the clients' flow seed.
     * @param livenessTimeoutMs how long every role waits for a silent peer before it is gone.
     */
    public record Run(EngineConfig engine, GatewayConfig gateway, long priceMin, long priceMax, Path journal,
        Path shmDirectory, String engineCores, long rate, long seed, long livenessTimeoutMs)
    {
        /**
         * @param timeoutMs the liveness timeout of every role.
         * @return this run with it.
         */
        public Run withLivenessTimeoutMs(final long timeoutMs)
        {
            return new Run(engine, gateway, priceMin, priceMax, journal, shmDirectory, engineCores, rate, seed,
                timeoutMs);
        }
    }

    /**
     * Makes a key per identity of the layout in {@code directory/keys} and writes the engine's,
     * gateway's and market-data service's config files.
     *
     * @param directory where (created).
     * @param layout    the run's endpoints and identities.
     * @param run       the rest.
     * @return the directory.
     */
    public static Path writeCore(final Path directory, final ExchangeLayout layout, final Run run)
    {
        final Path keys = directory.resolve("keys");
        for (final String identity : layout.identities())
        {
            KeyFiles.write(keys, Identity.generate(identity));
        }
        final StringBuilder engine = header("engine", layout, run, ExchangeLayout.ENGINE,
            List.of(ExchangeLayout.GATEWAY, ExchangeLayout.MARKET_DATA));
        line(engine, REQUESTS, layout.engineRequests());
        line(engine, REPORTS, layout.gatewayReports());
        line(engine, FEED, layout.marketDataFeed());
        line(engine, JOURNAL, run.journal().toString());
        line(engine, CORES, run.engineCores());
        line(engine, SNAPSHOT_INTERVAL, Long.toString(run.engine().snapshotInterval()));
        write(directory.resolve("engine.conf"), engine);

        final List<String> gatewayTrust = new ArrayList<>(List.of(ExchangeLayout.ENGINE));
        gatewayTrust.addAll(layout.members());
        final StringBuilder gateway = header("gateway", layout, run, ExchangeLayout.GATEWAY, gatewayTrust);
        line(gateway, ORDERS, layout.gatewayOrders());
        line(gateway, REPORTS, layout.gatewayReports());
        line(gateway, REQUESTS, layout.engineRequests());
        sessions(gateway, layout, run.gateway().sessions(), 0, layout.members().size());
        final GatewayConfig config = run.gateway();
        line(gateway, PRICE_REFERENCE, Long.toString(config.referencePrices()[config.instruments().getFirst().id()]));
        line(gateway, RISK_MAX_QUANTITY, Long.toString(config.limits().maxOrderQuantity()));
        line(gateway, RISK_MAX_NOTIONAL, Long.toString(config.limits().maxNotional()));
        line(gateway, RISK_PRICE_BAND, Long.toString(config.limits().priceBandTicks()));
        line(gateway, RISK_MAX_OPEN_ORDERS, Integer.toString(config.limits().maxOpenOrdersPerAccount()));
        line(gateway, RATE_PER_SESSION, Integer.toString(config.maxMessagesPerSecond()));
        line(gateway, RATE_BURST, Integer.toString(config.burst()));
        line(gateway, MAX_CLIENT_ORDER_IDS, Integer.toString(config.maxClientOrderIdsPerSession()));
        final TransportLimits limits = config.transportLimits();
        line(gateway, MAX_CONNECTIONS, Integer.toString(limits.maxTransports()));
        line(gateway, LOGON_TIMEOUT_MS, Long.toString(limits.logonTimeoutMs()));
        line(gateway, LOGONS_PER_SECOND, Integer.toString(limits.logonsPerSecond()));
        line(gateway, LOGON_BURST, Integer.toString(limits.logonBurst()));
        line(gateway, MAX_MALFORMED, Integer.toString(limits.maxMalformed()));
        line(gateway, REPLY_BACKLOG_BYTES, Integer.toString(limits.maxReplyBacklogBytes()));
        line(gateway, REPLY_BACKLOG_MS, Long.toString(limits.maxReplyBacklogMs()));
        line(gateway, REPLY_LOG_BYTES, Integer.toString(limits.replyLogBytes()));
        write(directory.resolve("gateway.conf"), gateway);

        final List<String> marketDataTrust = new ArrayList<>(List.of(ExchangeLayout.ENGINE));
        marketDataTrust.addAll(layout.marketDataSubscribers());
        final StringBuilder marketData = header("marketdata", layout, run, ExchangeLayout.MARKET_DATA,
            marketDataTrust);
        line(marketData, FEED, layout.marketDataFeed());
        line(marketData, SNAPSHOTS, layout.snapshotRequests());
        subscribers(marketData, layout, 0, layout.marketDataSubscribers().size());
        write(directory.resolve("marketdata.conf"), marketData);
        return directory;
    }

    /**
     * Writes a clients process's config file (keys from {@link #writeCore}).
     *
     * @param file                  the file.
     * @param layout                the run's endpoints and identities.
     * @param run                   the rest.
     * @param from                  its first session's index.
     * @param to                    one past its last.
     * @param marketDataIndex       its market-data subscriber's index, or -1 for none.
     * @param marketDataJoinAfterMs when that subscriber joins, after the clients' first acknowledgement.
     * @return the file.
     */
    public static Path writeClients(final Path file, final ExchangeLayout layout, final Run run, final int from,
        final int to, final int marketDataIndex, final long marketDataJoinAfterMs)
    {
        final List<String> identities = new ArrayList<>(layout.members().subList(from, to));
        if (marketDataIndex >= 0)
        {
            identities.add(layout.marketDataSubscribers().get(marketDataIndex));
        }
        final StringBuilder clients = header("clients", layout, run, String.join(",", identities),
            List.of(ExchangeLayout.GATEWAY, ExchangeLayout.MARKET_DATA));
        line(clients, ORDERS, layout.gatewayOrders());
        sessions(clients, layout, run.gateway().sessions(), from, to);
        if (marketDataIndex >= 0)
        {
            line(clients, SNAPSHOTS, layout.snapshotRequests());
            subscribers(clients, layout, marketDataIndex, marketDataIndex + 1);
            line(clients, MD_JOIN_AFTER_MS, Long.toString(marketDataJoinAfterMs));
        }
        line(clients, RATE, Long.toString(Math.max(1, run.rate() * (to - from) / Math.max(1, layout.members().size()))));
        line(clients, SEED, Long.toString(run.seed()));
        write(file, clients);
        return file;
    }

    private static StringBuilder header(final String role, final ExchangeLayout layout, final Run run,
        final String identities, final List<String> trusted)
    {
        final StringBuilder text = new StringBuilder("# RingWire sample exchange: the ").append(role)
            .append(" role (ringwire exchange ").append(role).append(" --config FILE)\n");
        line(text, ROLE, role);
        line(text, PROVIDER, layout.provider());
        final List<String> keyFiles = new ArrayList<>();
        for (final String identity : identities.split(","))
        {
            keyFiles.add("keys/" + identity + KeyFiles.IDENTITY_SUFFIX);
        }
        line(text, IDENTITY, String.join(", ", keyFiles));
        line(text, TRUST, String.join(", ", trusted.stream().map(name -> "keys/" + name + KeyFiles.PUBLIC_SUFFIX)
            .toList()));
        line(text, INSTRUMENTS, Integer.toString(run.engine().instruments().size()));
        line(text, PRICE_MIN, Long.toString(run.priceMin()));
        line(text, PRICE_MAX, Long.toString(run.priceMax()));
        line(text, MAX_ORDERS, Integer.toString(run.engine().maxOrders()));
        line(text, MAX_ACCOUNTS, Integer.toString(run.engine().maxAccounts()));
        if (null != run.shmDirectory())
        {
            line(text, SHM_DIR, run.shmDirectory().toString());
        }
        line(text, LIVENESS_TIMEOUT_MS, Long.toString(run.livenessTimeoutMs()));
        return text;
    }

    private static void sessions(final StringBuilder text, final ExchangeLayout layout,
        final List<SessionConfig> sessions, final int from, final int to)
    {
        for (int i = from; i < to; i++)
        {
            final SessionConfig session = sessions.get(i);
            line(text, SESSION_PREFIX + session.sessionId(), "identity " + layout.members().get(i) + ", account " +
                session.account() + ", token " + session.token() + ", replies " + layout.clientReplies().get(i));
        }
    }

    private static void subscribers(final StringBuilder text, final ExchangeLayout layout, final int from,
        final int to)
    {
        for (int i = from; i < to; i++)
        {
            line(text, SUBSCRIBER_PREFIX + (i - from), "identity " + layout.marketDataSubscribers().get(i) +
                ", endpoint " + layout.marketDataClients().get(i));
        }
    }

    private static void line(final StringBuilder text, final String key, final String value)
    {
        if (!ConfigFile.readsBack(value))
        {
            throw new IllegalArgumentException("'" + value + "' cannot go into a role's file as " + key +
                ": a line break, white space at an end or a '#' after white space would not read back");
        }
        if (!value.isEmpty())
        {
            text.append(key).append(" = ").append(value).append('\n');
        }
    }

    /**
     * Writes a role's file readable by its owner alone (mode 600), as its key: the gateway's and the
     * clients' files hold the sessions' tokens.
     */
    private static void write(final Path file, final StringBuilder text)
    {
        try
        {
            final Path directory = file.toAbsolutePath().getParent();
            Files.createDirectories(directory);
            if (null != Files.getFileAttributeView(directory, PosixFileAttributeView.class))
            {
                Files.deleteIfExists(file);
                Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            }
            Files.writeString(file, text, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write " + file + ": " + ex.getMessage(), ex);
        }
    }
}
