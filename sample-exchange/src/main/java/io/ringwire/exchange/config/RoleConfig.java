package io.ringwire.exchange.config;

import io.ringwire.exchange.book.InstrumentSpec;
import io.ringwire.exchange.book.OrderStore;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.fix.FixDoor;
import io.ringwire.exchange.gateway.GatewayConfig;
import io.ringwire.exchange.gateway.RiskLimits;
import io.ringwire.exchange.gateway.SessionConfig;
import io.ringwire.exchange.gateway.TransportLimits;
import io.ringwire.exchange.node.EngineThreads;
import io.ringwire.exchange.node.ExchangeLayout;
import io.ringwire.rdma.cm.ConnectionManagerConfig;
import io.ringwire.rdma.cm.Identity;
import io.ringwire.rdma.cm.KeyFiles;
import io.ringwire.rdma.cm.PeerKey;
import io.ringwire.rdma.config.EndpointAddress;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * One role of the sample exchange as its config file gives it (see {@link RoleFiles} for the keys):
 * which role, the provider, the identities it proves and the keys it accepts, the endpoints it
 * uses, and the settings of its engine, gateway, market data or clients. Everything is checked
 * when the file is read, so a role that starts has a configuration that works.
 *
 * @param role                  engine, gateway, marketdata or clients.
 * @param provider              shm, socket, roce or ibverbs.
 * @param identities            the identities this role's process proves (one, but a clients process's).
 * @param trusted               the keys it accepts.
 * @param layout                the endpoints it uses and the identities on them; unused ones null.
 * @param engine                the instruments and book capacity (every role sizes its books by them).
 * @param gateway               the gateway's sessions and limits (gateway role only, else null).
 * @param sessions              the client sessions this role serves or runs (gateway, clients).
 * @param journal               the engine's journal directory (engine role only, else null).
 * @param engineThreads         which of the engine's work runs on threads of its own (engine role
 *                              only, else null): {@code engine-threads}, by default what the
 *                              host's CPUs allow ({@link EngineThreads#forCpus}).
 * @param cores                 CPUs to pin the role's spinning thread to (empty: not pinned), or
 *                              null where the file leaves them out: messaging's own setting
 *                              ({@code ringwire.messaging.cores}) then holds.
 * @param shmDirectory          the shm provider's directory, or null for its default.
 * @param rate                  orders a second the clients offer (clients role).
 * @param seed                  the clients' flow seed (clients role).
 * @param marketDataJoinAfterMs when the clients' market-data subscriber joins, after their first
 *                              acknowledgement (clients role; 0: at the start).
 * @param livenessTimeoutMs     how long the role waits for a silent peer before it is gone, or 0
 *                              where the file leaves it out: messaging's and the transport's own
 *                              settings ({@code ringwire.messaging.liveness.timeout.ms},
 *                              {@code ringwire.rdma.peer.timeout.ms}) then hold.
 * @param fix                   the gateway's FIX door, or null when no session is a FIX session.
 */
public record RoleConfig(String role, String provider, List<Identity> identities, List<PeerKey> trusted,
    ExchangeLayout layout, EngineConfig engine, GatewayConfig gateway, List<SessionConfig> sessions, Path journal,
    EngineThreads engineThreads, String cores, Path shmDirectory, long rate, long seed, long marketDataJoinAfterMs, long livenessTimeoutMs,
    FixDoorConfig fix)
{
    /**
     * The gateway's FIX 4.4 door: {@code fix-door = HOST:PORT}, {@code fix-comp-id} (default
     * {@value #DEFAULT_FIX_COMP_ID}), {@code fix-store = DIR} (sequence numbers and sent messages,
     * kept across restarts), and the sessions whose line says {@code fix SENDERCOMPID} instead of
     * {@code replies HOST:PORT}: their members log on in FIX with that SenderCompID and the
     * session's token as Password (554).
     *
     * @param address where members connect.
     * @param compId  the door's CompID.
     * @param store   the store's directory.
     * @param members the FIX sessions.
     */
    public record FixDoorConfig(InetSocketAddress address, String compId, Path store, List<FixDoor.Member> members)
    {
    }

    /** The door's CompID when the file names none. */
    public static final String DEFAULT_FIX_COMP_ID = "RINGWIRE";
    /** What a CompID may be: printable, no separator or space a FIX field or a log line would split on. */
    private static final String COMP_ID = "[A-Za-z0-9_.-]{1,64}";

    /** The roles a config file may name. */
    public static final List<String> ROLES = List.of("engine", "gateway", "marketdata", "clients");
    private static final List<String> PROVIDERS = List.of("shm", "socket", "roce", "ibverbs");

    /**
     * Reads and checks a role's config file.
     *
     * @param file the file.
     * @return the role.
     * @throws IllegalArgumentException naming the file, the line and what is allowed.
     */
    public static RoleConfig read(final Path file)
    {
        final ConfigFile config = ConfigFile.read(file);
        final String role = config.required(RoleFiles.ROLE, String.join(", ", ROLES));
        if (!ROLES.contains(role))
        {
            throw config.refusal(RoleFiles.ROLE, "'" + role + "' is not a role; allowed: " + String.join(", ", ROLES));
        }
        final String provider = config.optional(RoleFiles.PROVIDER, "shm");
        if (!PROVIDERS.contains(provider))
        {
            throw config.refusal(RoleFiles.PROVIDER, "'" + provider + "' is not allowed; allowed: " +
                String.join(", ", PROVIDERS));
        }
        final List<Identity> identities = new ArrayList<>();
        for (final String path : config.list(RoleFiles.IDENTITY))
        {
            identities.add(keyFile(config, RoleFiles.IDENTITY, () -> KeyFiles.readIdentity(config.resolve(path))));
        }
        if (identities.isEmpty())
        {
            throw config.refusal(RoleFiles.IDENTITY, "is not set; it takes the role's identity file(s), made by " +
                "./ringwire keygen NAME");
        }
        final List<PeerKey> trusted = new ArrayList<>();
        for (final String path : config.list(RoleFiles.TRUST))
        {
            trusted.addAll(keyFile(config, RoleFiles.TRUST, () -> KeyFiles.readTrusted(config.resolve(path))));
        }
        if (trusted.isEmpty())
        {
            throw config.refusal(RoleFiles.TRUST, "is not set; it takes the public keys (.pub files or directories of " +
                "them) of the roles this one talks to");
        }
        // One name with two keys, or one key with two names, is refused here, naming the key of the file.
        keyFile(config, RoleFiles.TRUST, () -> new ConnectionManagerConfig().trust(trusted));
        final EngineConfig engine = engineConfig(config);
        final List<SessionConfig> sessions = sessions(config);
        final List<String[]> subscribers = subscribers(config);
        // Only the endpoints the role uses are read: another's endpoint line in its file is refused
        // below as a key it does not know.
        final List<String> endpoints = endpointKeys(role, subscribers);
        final ExchangeLayout layout = new ExchangeLayout(provider,
            endpoint(config, endpoints, RoleFiles.ORDERS), endpoint(config, endpoints, RoleFiles.REPORTS),
            endpoint(config, endpoints, RoleFiles.REQUESTS), endpoint(config, endpoints, RoleFiles.FEED),
            endpoint(config, endpoints, RoleFiles.SNAPSHOTS),
            sessions.stream().map(session -> replies(config, session)).toList(),
            sessions.stream().map(SessionConfig::identity).toList(),
            subscribers.stream().map(subscriber -> subscriber[1]).toList(),
            subscribers.stream().map(subscriber -> subscriber[0]).toList());
        final GatewayConfig gateway = "gateway".equals(role) ? gatewayConfig(config, sessions, engine) : null;
        final FixDoorConfig fix = fixDoor(config, role, sessions);
        final Path journal = "engine".equals(role) ? config.path(RoleFiles.JOURNAL) : null;
        final EngineThreads engineThreads = "engine".equals(role) ? engineThreads(config) : null;
        // Only the engine and the gateway spin on a thread of their own that cores pin.
        final boolean spins = "engine".equals(role) || "gateway".equals(role);
        final String cores = spins ? config.optional(RoleFiles.CORES, null) : "";
        final String shm = config.optional(RoleFiles.SHM_DIR, null);
        final boolean clients = "clients".equals(role);
        final long rate = clients ? config.number(RoleFiles.RATE, 1_000, 1, 100_000_000) : 1_000;
        final long seed = clients ? config.number(RoleFiles.SEED, 1, Long.MIN_VALUE, Long.MAX_VALUE) : 1;
        final long joinAfterMs = clients ? config.number(RoleFiles.MD_JOIN_AFTER_MS, 0, 0, 3_600_000) : 0;
        checkIdentities(config, role, identities, sessions, subscribers);
        final long livenessTimeoutMs = config.number(RoleFiles.LIVENESS_TIMEOUT_MS, 0, 2, 3_600_000);
        requireEndpoints(config, role, sessions, subscribers);
        config.rejectUnknownKeys(role);
        return new RoleConfig(role, provider, List.copyOf(identities), List.copyOf(trusted), layout, engine, gateway,
            sessions, journal, engineThreads, cores, null == shm ? null : config.resolve(shm), rate, seed, joinAfterMs,
            livenessTimeoutMs, fix);
    }

    /**
     * A core role proves its own identity alone (the engine's key on the gateway's host would let
     * the gateway's process speak for the engine); a clients process proves only its sessions' and
     * its subscribers' identities; no member or subscriber takes a core role's name.
     */
    private static void checkIdentities(final ConfigFile config, final String role, final List<Identity> identities,
        final List<SessionConfig> sessions, final List<String[]> subscribers)
    {
        final Set<String> core = Set.of(ExchangeLayout.ENGINE, ExchangeLayout.GATEWAY, ExchangeLayout.MARKET_DATA);
        final Set<String> members = new HashSet<>();
        for (final SessionConfig session : sessions)
        {
            if (core.contains(session.identity()))
            {
                throw config.refusal(RoleFiles.SESSION_PREFIX + session.sessionId(), "identity '" +
                    session.identity() + "' is a core role's name; a member's may not be one");
            }
            members.add(session.identity());
        }
        for (int i = 0; i < subscribers.size(); i++)
        {
            if (core.contains(subscribers.get(i)[0]))
            {
                throw config.refusal(RoleFiles.SUBSCRIBER_PREFIX + i, "identity '" + subscribers.get(i)[0] +
                    "' is a core role's name; a subscriber's may not be one");
            }
            members.add(subscribers.get(i)[0]);
        }
        final List<String> names = identities.stream().map(Identity::name).toList();
        if (!"clients".equals(role))
        {
            if (!names.equals(List.of(role)))
            {
                throw config.refusal(RoleFiles.IDENTITY, "the " + role + " role proves one identity, '" + role +
                    "', and no other; got " + names);
            }
            return;
        }
        for (final String name : names)
        {
            if (!members.contains(name))
            {
                throw config.refusal(RoleFiles.IDENTITY, "a clients process proves only its sessions' and its " +
                    "market-data subscribers' identities; '" + name + "' is neither");
            }
        }
    }

    /** {@code engine-threads}: auto (the default), none, or any of journaller, digest and replica. */
    private static EngineThreads engineThreads(final ConfigFile config)
    {
        try
        {
            return EngineThreads.parse(config.optional(RoleFiles.ENGINE_THREADS, "auto"));
        }
        catch (final IllegalArgumentException ex)
        {
            throw config.refusal(RoleFiles.ENGINE_THREADS, ex.getMessage());
        }
    }

    private static <T> T keyFile(final ConfigFile config, final String key, final Supplier<T> read)
    {
        try
        {
            return read.get();
        }
        catch (final IllegalArgumentException ex)
        {
            throw config.refusal(key, ex.getMessage());
        }
    }

    private static String endpoint(final ConfigFile config, final List<String> endpoints, final String key)
    {
        return endpoints.contains(key) && config.has(key) ? config.address(key) : null;
    }

    /** @return the endpoint keys a role reads: those it binds or connects to. */
    private static List<String> endpointKeys(final String role, final List<String[]> subscribers)
    {
        return switch (role)
        {
            case "engine" -> List.of(RoleFiles.REQUESTS, RoleFiles.REPORTS, RoleFiles.FEED);
            case "gateway" -> List.of(RoleFiles.ORDERS, RoleFiles.REPORTS, RoleFiles.REQUESTS);
            case "marketdata" -> List.of(RoleFiles.FEED, RoleFiles.SNAPSHOTS);
            default -> subscribers.isEmpty() ? List.of(RoleFiles.ORDERS) : List.of(RoleFiles.ORDERS, RoleFiles.SNAPSHOTS);
        };
    }

    private static EngineConfig engineConfig(final ConfigFile config)
    {
        final int instruments = (int)config.number(RoleFiles.INSTRUMENTS, 10, 1, 65_536);
        final long minPrice = config.number(RoleFiles.PRICE_MIN, -1, 1, Long.MAX_VALUE / 4);
        final long maxPrice = config.number(RoleFiles.PRICE_MAX, -1, 1, Long.MAX_VALUE / 4);
        if (minPrice < 0 || maxPrice < 0)
        {
            throw config.refusal(RoleFiles.PRICE_MIN, "the instruments' price band needs " + RoleFiles.PRICE_MIN +
                " and " + RoleFiles.PRICE_MAX);
        }
        if (maxPrice < minPrice || maxPrice - minPrice >= InstrumentSpec.MAX_PRICE_SLOTS)
        {
            throw config.refusal(RoleFiles.PRICE_MAX, maxPrice + " must be at least " + RoleFiles.PRICE_MIN + "=" +
                minPrice + " and within " + InstrumentSpec.MAX_PRICE_SLOTS + " ticks of it");
        }
        final long priceSlots = instruments * (maxPrice - minPrice + 1 + InstrumentSpec.SLOT_MARGIN);
        if (priceSlots > InstrumentSpec.MAX_PRICE_SLOTS)
        {
            throw config.refusal(RoleFiles.PRICE_MAX, "the " + instruments + " instruments' bands of " +
                (maxPrice - minPrice + 1) + " ticks need " + priceSlots + " price slots, more than the books' " +
                InstrumentSpec.MAX_PRICE_SLOTS + ": narrow the band or lower " + RoleFiles.INSTRUMENTS);
        }
        return new EngineConfig(EngineConfig.uniformInstruments(instruments, minPrice, (int)(maxPrice - minPrice + 1)),
            (int)config.number(RoleFiles.MAX_ORDERS, 1 << 20, 1, OrderStore.MAX_CAPACITY),
            (int)config.number(RoleFiles.MAX_ACCOUNTS, 1024, 1, 1 << 24),
            config.number(RoleFiles.SNAPSHOT_INTERVAL, 1_000_000, 0, Long.MAX_VALUE));
    }

    /**
     * {@code session.<id> = identity NAME, account N, token T, replies HOST:PORT}, or, for a FIX
     * session, {@code ..., fix SENDERCOMPID} in place of {@code replies}.
     */
    private static List<SessionConfig> sessions(final ConfigFile config)
    {
        final List<SessionConfig> sessions = new ArrayList<>();
        for (final String key : config.keysStartingWith(RoleFiles.SESSION_PREFIX))
        {
            final int id = (int)number(config, key, key.substring(RoleFiles.SESSION_PREFIX.length()), 1,
                Integer.MAX_VALUE);
            if (!key.equals(RoleFiles.SESSION_PREFIX + id))
            {
                // The session's other lines are found by its id: one spelling, so no two keys name one session.
                throw config.refusal(key, "write the session id in plain digits: " + RoleFiles.SESSION_PREFIX + id);
            }
            final Map<String, String> fields = sessionFields(config, key);
            try
            {
                sessions.add(new SessionConfig(id, fields.get("token"), number(config, key, fields.get("account"), 0,
                    Long.MAX_VALUE), fields.get("identity")));
            }
            catch (final IllegalArgumentException ex)
            {
                throw config.refusal(key, ex.getMessage());
            }
        }
        return sessions;
    }

    /** A session line's fields: a FIX session's name its SenderCompID where others name their reply endpoint. */
    private static Map<String, String> sessionFields(final ConfigFile config, final String key)
    {
        final boolean fix = Arrays.stream(config.required(key, "identity ..., account ..., token ..., replies ...")
            .split(",")).anyMatch(part -> part.trim().startsWith("fix "));
        return fix ? fields(config, key, "identity", "account", "token", "fix") :
            fields(config, key, "identity", "account", "token", "replies");
    }

    /** @return the FIX door, when the gateway has FIX sessions; refuses FIX sessions elsewhere and a door without. */
    private static FixDoorConfig fixDoor(final ConfigFile config, final String role, final List<SessionConfig> sessions)
    {
        final List<FixDoor.Member> members = new ArrayList<>();
        for (int i = 0; i < sessions.size(); i++)
        {
            final String key = RoleFiles.SESSION_PREFIX + sessions.get(i).sessionId();
            final String compId = sessionFields(config, key).get("fix");
            if (null != compId)
            {
                if (!"gateway".equals(role))
                {
                    throw config.refusal(key, "is a FIX session: only the gateway's file lists those");
                }
                if (!compId.matches(COMP_ID))
                {
                    throw config.refusal(key, "'" + compId + "' is not a SenderCompID (letters, digits, _ . -)");
                }
                if (members.stream().anyMatch(member -> member.senderCompId().equals(compId)))
                {
                    throw config.refusal(key, "SenderCompID " + compId + " is another FIX session's already");
                }
                members.add(new FixDoor.Member(i, sessions.get(i), compId));
            }
        }
        if (!"gateway".equals(role) || (members.isEmpty() && !config.has(RoleFiles.FIX_DOOR)))
        {
            return null;
        }
        if (members.isEmpty())
        {
            throw config.refusal(RoleFiles.FIX_DOOR, "is set but no session says 'fix SENDERCOMPID'");
        }
        final EndpointAddress address = EndpointAddress.parse(RoleFiles.FIX_DOOR, config.address(RoleFiles.FIX_DOOR),
            false);
        final String compId = config.optional(RoleFiles.FIX_COMP_ID, DEFAULT_FIX_COMP_ID);
        if (!compId.matches(COMP_ID))
        {
            throw config.refusal(RoleFiles.FIX_COMP_ID, "'" + compId + "' is not a CompID (letters, digits, _ . -)");
        }
        if (members.stream().anyMatch(member -> member.senderCompId().equals(compId)))
        {
            throw config.refusal(RoleFiles.FIX_COMP_ID, compId + " is a member's SenderCompID: the door needs its own");
        }
        final String store = config.optional(RoleFiles.FIX_STORE, null);
        if (members.size() > FixDoor.MAX_SESSIONS)
        {
            throw config.refusal(RoleFiles.FIX_DOOR, "serves at most " + FixDoor.MAX_SESSIONS + " FIX sessions");
        }
        return new FixDoorConfig(new InetSocketAddress(address.host(), address.port()), compId, null == store ? null : config.resolve(store),
            List.copyOf(members));
    }

    /** Notes the line's address, refusing it where an earlier line has it. */
    private static void distinct(final ConfigFile config, final Map<String, String> lineByAddress, final String line,
        final String address)
    {
        final EndpointAddress parsed = EndpointAddress.parse(line, address, false);
        if (0 == parsed.port())
        {
            // The system would pick a port no peer's file can name: the role would wait for peers
            // that never reach it.
            throw config.refusal(line, address + " has port 0: give the port its peers use");
        }
        final String other = lineByAddress.putIfAbsent(parsed.host().toLowerCase(Locale.ROOT) + ":" + parsed.port(), line);
        if (null != other)
        {
            throw config.refusal(line, address + " is the endpoint of " + other + " too: each listens on a port of its own");
        }
    }

    private static String replies(final ConfigFile config, final SessionConfig session)
    {
        final String key = RoleFiles.SESSION_PREFIX + session.sessionId();
        final String address = sessionFields(config, key).get("replies");
        if (null == address)
        {
            return ""; // a FIX session: its replies go out through the gateway's FIX door
        }
        try
        {
            EndpointAddress.parse(key + " replies", address, false);
            return address;
        }
        catch (final IllegalArgumentException ex)
        {
            throw config.refusal(key, ex.getMessage());
        }
    }

    /**
     * {@code subscriber.<index> = identity NAME, endpoint HOST:PORT}.
     *
     * @return {identity, endpoint} per subscriber, by index.
     */
    private static List<String[]> subscribers(final ConfigFile config)
    {
        final TreeMap<Integer, String[]> byIndex = new TreeMap<>();
        for (final String key : config.keysStartingWith(RoleFiles.SUBSCRIBER_PREFIX))
        {
            final int index = (int)number(config, key, key.substring(RoleFiles.SUBSCRIBER_PREFIX.length()), 0, 4095);
            final Map<String, String> fields = fields(config, key, "identity", "endpoint");
            try
            {
                Identity.checkName(fields.get("identity"));
                EndpointAddress.parse(key + " endpoint", fields.get("endpoint"), false);
            }
            catch (final IllegalArgumentException ex)
            {
                throw config.refusal(key, ex.getMessage());
            }
            if (null != byIndex.put(index, new String[]{ fields.get("identity"), fields.get("endpoint") }))
            {
                throw config.refusal(key, "is subscriber " + index + " again (an index written another way)");
            }
        }
        if (!byIndex.isEmpty() && byIndex.size() != byIndex.lastKey() + 1)
        {
            throw config.refusal(RoleFiles.SUBSCRIBER_PREFIX + byIndex.keySet().iterator().next(),
                "subscribers are numbered 0, 1, 2... without gaps; got " + byIndex.keySet());
        }
        return new ArrayList<>(byIndex.values());
    }

    /**
     * @return a line's {@code name value} pairs, comma-separated, each of {@code names} present.
     */
    private static Map<String, String> fields(final ConfigFile config, final String key, final String... names)
    {
        final Map<String, String> fields = new TreeMap<>();
        for (final String part : config.required(key, String.join(" ..., ", names) + " ...").split(","))
        {
            final String trimmed = part.trim();
            final int space = trimmed.indexOf(' ');
            if (space <= 0)
            {
                throw config.refusal(key, "'" + trimmed + "' is not 'name value'; the line takes " +
                    String.join(", ", Arrays.stream(names).map(name -> name + " VALUE").toList()));
            }
            if (null != fields.put(trimmed.substring(0, space), trimmed.substring(space + 1).trim()))
            {
                throw config.refusal(key, "names '" + trimmed.substring(0, space) + "' twice");
            }
        }
        for (final String name : names)
        {
            if (!fields.containsKey(name))
            {
                throw config.refusal(key, "has no '" + name + "'; the line takes " + String.join(", ", names));
            }
        }
        if (fields.size() != names.length)
        {
            throw config.refusal(key, "has fields " + fields.keySet() + "; it takes exactly " + List.of(names));
        }
        return fields;
    }

    private static long number(final ConfigFile config, final String key, final String value, final long min,
        final long max)
    {
        try
        {
            final long parsed = Long.parseLong(value.trim().replace("_", ""));
            if (parsed >= min && parsed <= max)
            {
                return parsed;
            }
        }
        catch (final NumberFormatException ignored)
        {
            // refused below
        }
        throw config.refusal(key, "'" + value + "' is not a number from " + min + " to " + max);
    }

    private static GatewayConfig gatewayConfig(final ConfigFile config, final List<SessionConfig> sessions,
        final EngineConfig engine)
    {
        final long reference = config.number(RoleFiles.PRICE_REFERENCE, -1, 1, Long.MAX_VALUE / 4);
        if (reference < 0)
        {
            throw config.refusal(RoleFiles.PRICE_REFERENCE, "is not set; the gateway's price band starts from it");
        }
        final long[] references = new long[engine.instruments().size() + 1];
        Arrays.fill(references, reference);
        try
        {
            return new GatewayConfig(sessions, engine.instruments(), references,
                new RiskLimits(config.number(RoleFiles.RISK_MAX_QUANTITY, 1_000_000, 1, Long.MAX_VALUE),
                    config.number(RoleFiles.RISK_MAX_NOTIONAL, 1_000_000_000_000L, 1, Long.MAX_VALUE),
                    config.number(RoleFiles.RISK_PRICE_BAND, 5_000, 0, Long.MAX_VALUE),
                    (int)config.number(RoleFiles.RISK_MAX_OPEN_ORDERS, 100_000, 1, Integer.MAX_VALUE)),
                (int)config.number(RoleFiles.RATE_PER_SESSION, 10_000, 1, Integer.MAX_VALUE),
                (int)config.number(RoleFiles.RATE_BURST, 10_000, 1, Integer.MAX_VALUE),
                (int)config.number(RoleFiles.MAX_CLIENT_ORDER_IDS, 1 << 20, 1, 1 << 28),
                transportLimits(config, sessions.size()));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(config.file() + ": " + ex.getMessage(), ex);
        }
    }

    private static TransportLimits transportLimits(final ConfigFile config, final int sessions)
    {
        // The member endpoint admits MEMBER_CONNECTIONS per member: a table smaller than that lets
        // members' idle connections keep the others' out.
        final int connectionsNeeded = ExchangeLayout.MEMBER_CONNECTIONS * sessions;
        final int maxConnections = (int)config.number(RoleFiles.MAX_CONNECTIONS, Math.max(256, connectionsNeeded), 1,
            65_536);
        if (maxConnections < connectionsNeeded)
        {
            throw config.refusal(RoleFiles.MAX_CONNECTIONS, maxConnections + " is fewer than the " + connectionsNeeded +
                " connections the gateway's member endpoint admits (" + ExchangeLayout.MEMBER_CONNECTIONS + " for each of " +
                sessions + " sessions)");
        }
        final int replyLogBytes = (int)config.number(RoleFiles.REPLY_LOG_BYTES, TransportLimits.DEFAULT_REPLY_LOG_BYTES,
            TransportLimits.MIN_REPLY_LOG_BYTES, 1 << 30);
        if (Integer.bitCount(replyLogBytes) != 1)
        {
            throw config.refusal(RoleFiles.REPLY_LOG_BYTES, replyLogBytes + " is not a power of two; allowed: " +
                TransportLimits.MIN_REPLY_LOG_BYTES + " to " + (1 << 30) + ", a power of two");
        }
        // Without a line of its own, the backlog fits the log the file sets.
        final int replyBacklogBytes = (int)config.number(RoleFiles.REPLY_BACKLOG_BYTES,
            Math.min(TransportLimits.DEFAULT_REPLY_BACKLOG_BYTES, replyLogBytes / 2), 4096, 1 << 30);
        if (Integer.bitCount(replyBacklogBytes) != 1)
        {
            // The backlog's ring takes a power of two: another value would quietly become a smaller one.
            throw config.refusal(RoleFiles.REPLY_BACKLOG_BYTES, replyBacklogBytes + " is not a power of two; " +
                "allowed: 4096 to " + (1 << 30) + ", a power of two");
        }
        return new TransportLimits(maxConnections,
            config.number(RoleFiles.LOGON_TIMEOUT_MS, 5_000, 1, TransportLimits.MAX_WAIT_MS),
            (int)config.number(RoleFiles.LOGONS_PER_SECOND, 5, 1, 1_000_000),
            (int)config.number(RoleFiles.LOGON_BURST, 5, 1, 1_000_000),
            (int)config.number(RoleFiles.MAX_MALFORMED, 64, 0, Integer.MAX_VALUE),
            replyBacklogBytes, config.number(RoleFiles.REPLY_BACKLOG_MS, 2_000, 1, TransportLimits.MAX_WAIT_MS),
            replyLogBytes);
    }

    private static void requireEndpoints(final ConfigFile config, final String role, final List<SessionConfig> sessions,
        final List<String[]> subscribers)
    {
        // Each endpoint is a subscription listening on a port of its own: two lines naming one
        // address would leave one of them never reached (a session's replies, say, its logons unanswered).
        final Map<String, String> lineByAddress = new HashMap<>();
        for (final String key : endpointKeys(role, subscribers))
        {
            distinct(config, lineByAddress, key, config.address(key));
        }
        for (final SessionConfig session : sessions)
        {
            final String replies = replies(config, session);
            if (!replies.isEmpty())
            {
                distinct(config, lineByAddress, RoleFiles.SESSION_PREFIX + session.sessionId(), replies);
            }
        }
        for (int i = 0; i < subscribers.size(); i++)
        {
            distinct(config, lineByAddress, RoleFiles.SUBSCRIBER_PREFIX + i, subscribers.get(i)[1]);
        }
        if ("gateway".equals(role) && config.has(RoleFiles.FIX_DOOR))
        {
            distinct(config, lineByAddress, RoleFiles.FIX_DOOR, config.address(RoleFiles.FIX_DOOR));
        }
        if (("gateway".equals(role) || "clients".equals(role)) && sessions.isEmpty())
        {
            throw config.refusal(RoleFiles.SESSION_PREFIX + "ID", "the " + role + " role needs at least one " +
                RoleFiles.SESSION_PREFIX + "<id> line");
        }
        if ("marketdata".equals(role) && subscribers.isEmpty())
        {
            throw config.refusal(RoleFiles.SUBSCRIBER_PREFIX + "0", "the marketdata role needs at least one " +
                RoleFiles.SUBSCRIBER_PREFIX + "<index> line");
        }
        if ("clients".equals(role) && subscribers.size() > 1)
        {
            throw config.refusal(RoleFiles.SUBSCRIBER_PREFIX + "1", "a clients process runs at most one market-data " +
                "subscriber");
        }
    }
}
