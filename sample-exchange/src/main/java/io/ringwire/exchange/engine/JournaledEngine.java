package io.ringwire.exchange.engine;

import io.ringwire.codecs.trading.CancelOrderDecoder;
import io.ringwire.codecs.trading.EngineCommandType;
import io.ringwire.codecs.trading.MassCancelDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import io.ringwire.exchange.journal.Journal;
import io.ringwire.exchange.journal.JournalContext;
import io.ringwire.exchange.journal.JournalDirectory;
import io.ringwire.exchange.journal.JournalReadResult;
import io.ringwire.exchange.journal.JournalReader;
import io.ringwire.exchange.journal.LockFile;
import org.agrona.DirectBuffer;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * A matching engine with its journal: every request that passes the engine's check is journaled
 * before it is applied, so a process killed at any point loses nothing it accepted. At every
 * snapshot point ({@link EngineConfig#snapshotInterval()} requests, and the journaled SNAPSHOT
 * command) it links its output digest (see {@link OutputDigest}) and, where it keeps the
 * snapshots, writes one.
 *
 * <p>Three compositions share the rules: {@link #open} journals and applies on one thread, and writes
 * the snapshots there too unless a {@link SnapshotReplica} does (the running exchange's engine, a
 * tool, a test; its digest may go to a {@link DigestAgent});
 * {@link #recover} makes an engine that applies records another thread journaled
 * ({@link #applyJournaled}; the exchange's engine where a journaller runs ahead of it), writing
 * the snapshots or leaving them to a replica as {@link #open} does; {@link #replica}
 * makes a replica that replays the journal behind such an engine and writes the snapshots.
 *
 * <p>Opening recovers: it loads the newest whole snapshot, replays the journal after it through the
 * engine (whose outputs go to the output again: the engine's sequences let a receiver drop what it
 * already had), and reopens the journal after its last whole record. A torn last record is reported
 * and discarded; a damaged record with whole ones after it stops the start, since skipping it would
 * lose an accepted request.
 *
 * <p>The journal directory keeps the engine's configuration, so {@link #replay} needs nothing else.
 *
 * <p>Threading: one thread. {@link #accept} and {@link #applyJournaled} allocate nothing in steady
 * state (a snapshot, taken between requests where this engine keeps them, does).
 */
public final class JournaledEngine implements AutoCloseable
{
    /** {@link #accept}: the journal refused the request (too large, or a new segment could not be made). */
    public static final int JOURNAL_REFUSED = -200;
    /**
     * {@link #accept}: the request names an engine life other than this engine's
     * ({@link #namesOtherLife}); it was neither journaled nor applied.
     */
    public static final int OTHER_LIFE = -201;
    /**
     * The longest request the engine takes, with a journaller or without: far above any request
     * the gateway sends; a longer one is counted and dropped either way, so the engine's output
     * never depends on which thread journals. The journal's largest payload, which bounds how far a
     * record a crash tore may reach.
     */
    public static final int MAX_REQUEST_LENGTH = 1024;
    private static final System.Logger LOG = System.getLogger(JournaledEngine.class.getName());
    /** The settings key of the engine's {@link #life()}. */
    public static final String LIFE_KEY = "engine.life";
    /** Lives are chosen at random: two journals' engines must not share one, whatever their clocks. */
    private static final SecureRandom LIVES = new SecureRandom();

    private final MatchingEngine engine;
    private final EngineOutput output;
    private final EngineSnapshots snapshots;
    private final long snapshotInterval;
    /** A snapshot taken while output it covers was still waiting to leave: written once it has. */
    private EngineState pendingSnapshot;
    private Journal journal;
    /** Where the journal is, for forcing its segments where another thread appends to it. */
    private Path journalDirectory;
    /** The first segment that may hold records not yet forced before a snapshot. */
    private long unforcedSegmentBase;
    /** Held by the live engine (from {@link #open} or {@link #recover}) until {@link #close}. */
    private EngineLock engineLock;
    private JournalReadResult recovery;
    /** The live engine's life ({@link #life()}); 0 for a replica or a replay, which make no output. */
    private long life;
    private long applied;
    private long snapshotsTaken;
    private long snapshotFailures;
    private boolean closed;

    private JournaledEngine(final MatchingEngine engine, final EngineOutput output, final EngineSnapshots snapshots,
        final long snapshotInterval)
    {
        this.engine = engine;
        this.output = output;
        this.snapshots = snapshots;
        this.snapshotInterval = snapshotInterval;
        engine.digest().onValue(digest -> LOG.log(System.Logger.Level.DEBUG, () -> "engine output digest " + digest));
    }

    /**
     * Opens (creating or recovering) the engine journaled in {@code directory}, all of it on the
     * calling thread: it journals ({@link #accept}), digests and writes snapshots itself.
     *
     * @param directory     the journal directory.
     * @param config        the configuration for a new journal; an existing one keeps its own, and
     *                      a different one given here is refused; null to take the journal's.
     * @param output        where execution reports and market data go (recovery's too).
     * @param segmentLength journal segment size for a new journal, a power of two.
     * @return the engine, recovered.
     * @throws IllegalStateException when the journal is damaged before its end, or its configuration
     *                               differs from {@code config}.
     */
    public static JournaledEngine open(final Path directory, final EngineConfig config, final EngineOutput output,
        final int segmentLength)
    {
        return open(directory, config, output, segmentLength, true);
    }

    /**
     * As {@link #open(Path, EngineConfig, EngineOutput, int)}, choosing who writes the snapshots.
     *
     * @param writesSnapshots true: this engine writes them, on its thread; false: a
     *                        {@link SnapshotReplica} does, on its own (this engine still links its
     *                        digest at every snapshot point, where the replica's snapshot holds it).
     * @see #open(Path, EngineConfig, EngineOutput, int)
     */
    public static JournaledEngine open(final Path directory, final EngineConfig config, final EngineOutput output,
        final int segmentLength, final boolean writesSnapshots)
    {
        final JournaledEngine journaled = recover(directory, config, output, writesSnapshots);
        try
        {
            final Journal journal = Journal.open(new JournalContext().directory(directory).segmentLength(segmentLength)
                .maxPayloadLength(MAX_REQUEST_LENGTH).conclude());
            journaled.requireWhole(journal);
            journaled.journal = journal;
            return journaled;
        }
        catch (final RuntimeException | Error ex)
        {
            journaled.engineLock.close();
            throw ex;
        }
    }

    /**
     * Recovers the live engine of the exchange's pipeline from {@code directory}: from the newest
     * snapshot and the journal after it, on the calling thread (its digest fed there too, until
     * {@link MatchingEngine#feedDigest} hands it on). It opens no journal (the journaller appends;
     * see {@link #requireWhole}).
     *
     * @param directory       the journal directory (created when new).
     * @param config          as {@link #open} takes it.
     * @param output          where execution reports and market data go (recovery's too).
     * @param writesSnapshots true: this engine writes the snapshots, on its thread, between
     *                        requests; false: a {@link #replica} does.
     * @return the engine, at the journal's end.
     */
    public static JournaledEngine recover(final Path directory, final EngineConfig config, final EngineOutput output,
        final boolean writesSnapshots)
    {
        final EngineLock lock = EngineLock.take(directory);
        try
        {
            final EngineConfig actual = settle(directory, config);
            final JournaledEngine journaled = new JournaledEngine(new MatchingEngine(actual, output), output,
                writesSnapshots ? new EngineSnapshots(directory) : null, actual.snapshotInterval());
            journaled.life = settleLife(directory);
            output.engineLife(journaled.life);
            journaled.recover(directory, true);
            journaled.engineLock = lock;
            return journaled;
        }
        catch (final RuntimeException | Error ex)
        {
            lock.close();
            throw ex;
        }
    }

    /**
     * The engine's replica: restored from the newest snapshot in {@code directory} (or empty), it
     * applies the journal's records from there as a reader hands them over ({@link #applyJournaled})
     * and writes the snapshots, digesting its own output to keep the chain they hold. Its output
     * goes nowhere. It reads no journal itself: open it before records are appended past the
     * snapshot, or hand it every record after {@link #applied()}.
     *
     * @param directory the journal directory, with the engine's configuration in it.
     * @return the replica, at the newest snapshot.
     */
    public static JournaledEngine replica(final Path directory)
    {
        final EngineConfig config = settle(directory, null);
        final JournaledEngine journaled = new JournaledEngine(new MatchingEngine(config, EngineOutput.NONE),
            EngineOutput.NONE, new EngineSnapshots(directory), config.snapshotInterval());
        journaled.journalDirectory = directory;
        journaled.restoreLatestSnapshot(directory);
        return journaled;
    }

    /**
     * Recomputes an engine's output from its journal alone, from the first record, and returns the
     * digest it reaches: the digest the engine reported for the same records, whatever kills and
     * restarts it went through. Writes nothing.
     *
     * @param directory the journal directory.
     * @return what the replay read and the digest.
     * @throws IllegalStateException when an engine runs on the journal (recovering or appending), among the
     *                               journal's own refusals.
     */
    public static Replay replay(final Path directory)
    {
        // An engine still recovering holds only its engine lock, and may yet zero a torn tail or append.
        // That lock first, so the writer of an engine already recovering never meets the writer's lock
        // taken by the check; and again after it, so an engine that started between the two is seen.
        requireNoEngine(directory);
        JournalDirectory.requireNoWriter(directory);
        requireNoEngine(directory);
        final EngineConfig config = settle(directory, null);
        final JournaledEngine journaled = new JournaledEngine(new MatchingEngine(config, EngineOutput.NONE),
            EngineOutput.NONE, null, config.snapshotInterval());
        journaled.recover(directory, false);
        return new Replay(journaled.applied, journaled.recovery, journaled.digest(), journaled.engine.booksDigest());
    }

    private static void requireNoEngine(final Path directory)
    {
        LockFile.requireUnheld(directory, EngineLock.FILE,
            "an engine runs on the journal in " + directory + " in this process: stop it first, since it appends",
            "an engine runs on the journal in " + directory + " (" + EngineLock.FILE + " is locked): stop it, or " +
                "read a copy, since it appends");
    }

    /**
     * What a {@link #replay} found.
     *
     * @param records     records applied.
     * @param read        what the journal reader reported (a torn tail, if any).
     * @param digest      the output digest.
     * @param booksDigest the digest of the books it ended with.
     */
    public record Replay(long records, JournalReadResult read, String digest, String booksDigest)
    {
    }

    /**
     * Checks that a journal opened after recovery holds exactly the records recovery applied (one
     * writer at a time; nothing appended in between); closes it when not.
     *
     * @param opened the journal, open for appending.
     * @throws IllegalStateException when the counts differ.
     */
    public void requireWhole(final Journal opened)
    {
        if (opened.recordCount() != applied)
        {
            final long records = opened.recordCount();
            opened.close();
            throw new IllegalStateException("the journal in " + opened.directory() + " holds " + records +
                " records, but recovery applied " + applied);
        }
    }

    private void recover(final Path directory, final boolean fromSnapshot)
    {
        journalDirectory = directory;
        if (fromSnapshot)
        {
            restoreLatestSnapshot(directory);
        }
        if (!Files.exists(directory.resolve(JournalDirectory.METADATA_FILE)))
        {
            if (applied > 0 && !JournalDirectory.holdsSegments(directory))
            {
                // Refused before a journal is created here: the directory stays as it was found. (With
                // segments left, opening the journal refuses, naming the file to restore.)
                throw new IllegalStateException("the directory " + directory + " holds a snapshot at record " +
                    applied + " but no journal; the engine does not start without the records a snapshot " +
                    "stands for (nothing was changed)");
            }
            return; // a new journal, or segments without their metadata, which opening the journal refuses
        }
        recovery = new JournalReader(directory).read(applied, (sequence, buffer, offset, length) ->
            applyJournaled(buffer, offset, length));
        if (recovery.corrupt())
        {
            throw new IllegalStateException("the journal in " + directory + " is damaged before its end: " +
                recovery.damage().message() + "; the engine does not start on a journal that would lose accepted requests");
        }
        if (recovery.nextSequence() < applied)
        {
            // Refused before the journal is opened for appending, which would zero a torn tail: the
            // bytes stay as they are for whoever looks into why.
            throw new IllegalStateException("the journal in " + directory + " ends at record " +
                recovery.nextSequence() + (recovery.tornTail() ? " (a torn record there: " +
                recovery.damage().message() + ")" : "") + ", but the newest snapshot is at record " + applied +
                "; the engine does not start on a journal that lost records a snapshot holds (nothing was changed)");
        }
        if (recovery.tornTail())
        {
            LOG.log(System.Logger.Level.WARNING, "the journal's last record was torn and is not applied: " +
                recovery.damage().message());
        }
    }

    private void restoreLatestSnapshot(final Path directory)
    {
        final EngineSnapshots found = new EngineSnapshots(directory);
        found.latest().ifPresent(state ->
        {
            engine.restore(state);
            applied = state.journalSequence();
        });
        for (final String problem : found.problems())
        {
            LOG.log(System.Logger.Level.WARNING, "snapshot passed over: " + problem);
        }
    }

    /**
     * The life of the engine whose journal this is: a positive number chosen when the engine starts
     * from nothing (no journal segment and no snapshot in its directory), kept in the directory's
     * settings ({@value #LIFE_KEY}) for every restart after. Its sequences (reports, market data)
     * count within one life: an engine started again on a new journal counts from the start
     * again, which its readers could otherwise take for a resend of what they have.
     *
     * @return the life; 0 for an engine that is not the live one (a replica, a replay).
     */
    public long life()
    {
        return life;
    }

    /**
     * Whether a request names an engine life other than {@code life}: its gateway serves an engine
     * since replaced on a new journal, whose orders, counts and sequences it holds, so this engine
     * must not apply it (and the reject it gets tells that gateway). A request that names none (0,
     * or one of a version before lives) names no other. Allocation-free; any thread.
     *
     * @param buffer holds a request that passed {@link MatchingEngine#check}, from {@code offset}.
     * @param length its length.
     * @param life   the engine's life.
     * @return true when the request names another life.
     */
    public static boolean namesOtherLife(final DirectBuffer buffer, final int offset, final int length, final long life)
    {
        if (length < MessageHeaderDecoder.ENCODED_LENGTH ||
            (buffer.getShort(offset + MessageHeaderDecoder.versionEncodingOffset(), ByteOrder.LITTLE_ENDIAN) & 0xFFFF) <
            NewOrderDecoder.engineLifeSinceVersion())
        {
            return false;
        }
        final int field = switch (buffer.getShort(offset + MessageHeaderDecoder.templateIdEncodingOffset(),
            ByteOrder.LITTLE_ENDIAN) & 0xFFFF)
        {
            case NewOrderDecoder.TEMPLATE_ID -> NewOrderDecoder.engineLifeEncodingOffset();
            case CancelOrderDecoder.TEMPLATE_ID -> CancelOrderDecoder.engineLifeEncodingOffset();
            case ReplaceOrderDecoder.TEMPLATE_ID -> ReplaceOrderDecoder.engineLifeEncodingOffset();
            case MassCancelDecoder.TEMPLATE_ID -> MassCancelDecoder.engineLifeEncodingOffset();
            default -> -1;
        };
        final int blockLength = buffer.getShort(offset + MessageHeaderDecoder.blockLengthEncodingOffset(),
            ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        if (field < 0 || blockLength < field + Long.BYTES || length < MessageHeaderDecoder.ENCODED_LENGTH + field + Long.BYTES)
        {
            return false;
        }
        final long named = buffer.getLong(offset + MessageHeaderDecoder.ENCODED_LENGTH + field, ByteOrder.LITTLE_ENDIAN);
        return named > 0 && named != life;
    }

    /**
     * The live engine's life, read from the settings {@link #settle} stored, or chosen and stored
     * there when the engine starts from nothing or the settings have none (a journal written before
     * lives were kept). Only the live engine, under its lock, calls this: replay reads and writes nothing.
     */
    private static long settleLife(final Path directory)
    {
        final Map<String, String> stored = JournalDirectory.readSettings(directory);
        final String value = stored.get(LIFE_KEY);
        final boolean fromNothing = !JournalDirectory.holdsSegments(directory) &&
            new EngineSnapshots(directory).files().isEmpty();
        if (null != value && !fromNothing)
        {
            long life = 0;
            NumberFormatException unparsed = null;
            try
            {
                life = Long.parseLong(value.trim());
            }
            catch (final NumberFormatException ex)
            {
                unparsed = ex;
            }
            if (life <= 0)
            {
                throw new IllegalArgumentException(directory.resolve(JournalDirectory.SETTINGS_FILE) + " " + LIFE_KEY +
                    " must be a positive number: " + value, unparsed);
            }
            return life;
        }
        long life = 0;
        while (life == 0)
        {
            life = LIVES.nextLong() & Long.MAX_VALUE;
        }
        final Map<String, String> settings = new HashMap<>(stored);
        settings.put(LIFE_KEY, Long.toString(life));
        JournalDirectory.writeSettings(directory, settings);
        return life;
    }

    private static EngineConfig settle(final Path directory, final EngineConfig config)
    {
        final Map<String, String> stored = Files.isDirectory(directory) ? JournalDirectory.readSettings(directory) : Map.of();
        if (stored.isEmpty())
        {
            if (null == config)
            {
                throw new IllegalArgumentException(directory + " holds no engine configuration");
            }
            final Map<String, String> settings = new HashMap<>();
            config.toProperties().forEach((key, value) -> settings.put((String)key, (String)value));
            JournalDirectory.writeSettings(directory, settings);
            return config;
        }
        final Properties properties = new Properties();
        properties.putAll(stored);
        final EngineConfig existing = EngineConfig.fromProperties(properties);
        if (null != config && !existing.equals(config))
        {
            throw new IllegalStateException("the journal in " + directory + " was written by an engine configured " +
                "differently: " + existing + " versus " + config);
        }
        return existing;
    }

    /**
     * Takes one request: checked, journaled, applied (the composition of {@link #open}).
     *
     * @return the template id applied, or a negative code: the engine's check failed
     *         ({@link MatchingEngine#check}), {@link #OTHER_LIFE} or {@link #JOURNAL_REFUSED}; either
     *         way nothing was journaled or applied.
     */
    public int accept(final DirectBuffer buffer, final int offset, final int length)
    {
        final int check = MatchingEngine.check(buffer, offset, length);
        if (check < 0)
        {
            return engine.apply(buffer, offset, length); // counts it, changes nothing
        }
        if (namesOtherLife(buffer, offset, length, life))
        {
            return OTHER_LIFE;
        }
        if (journal.append(buffer, offset, length) < 0)
        {
            return JOURNAL_REFUSED;
        }
        return applyJournaled(buffer, offset, length);
    }

    /**
     * Idle work where this engine appends to its journal ({@link #open}): prepares the journal ahead
     * of its appends ({@link Journal#prepareAhead}), so a request neither page-faults nor waits for a
     * segment file.
     *
     * @param maxPages most pages to touch.
     * @return work done (0 where another thread journals).
     */
    public int prepareJournal(final int maxPages)
    {
        return null == journal ? 0 : journal.prepareAhead(maxPages);
    }

    /**
     * Applies the next journaled request (the journal checked it before it took it), then acts on
     * a snapshot point or a DIGEST command it makes.
     *
     * @return the template id applied.
     */
    public int applyJournaled(final DirectBuffer buffer, final int offset, final int length)
    {
        final int templateId = engine.applyChecked(buffer, offset, length);
        applied++;
        final int command = engine.lastCommand(templateId);
        if (command == EngineCommandType.SNAPSHOT.value() || (snapshotInterval > 0 && applied % snapshotInterval == 0))
        {
            engine.digestFeed().link(applied);
            if (null != snapshots)
            {
                pendingSnapshot = engine.state(applied);
                writePendingSnapshot();
            }
        }
        if (command == EngineCommandType.DIGEST.value())
        {
            engine.digestFeed().valueRequested();
        }
        return templateId;
    }

    /**
     * @param listener told the digest whenever a DIGEST command is applied, and at close, on the
     *                 thread that feeds the digest.
     */
    public void onDigest(final Consumer<String> listener)
    {
        engine.digest().onValue(listener);
    }

    /** @return the engine. */
    public MatchingEngine engine()
    {
        return engine;
    }

    /** @return journal records applied (the journal's length). */
    public long applied()
    {
        return applied;
    }

    /**
     * A snapshot that cannot be written (a full disk, a directory gone) is counted and told, and the
     * engine goes on: the journal holds every request, so recovery replays further back, and a
     * half-taken state must not stop matching or be applied again.
     */
    private void writeSnapshot(final EngineState state)
    {
        try
        {
            // The records below the snapshot reach the device first: a power loss must not leave a
            // snapshot whose journal prefix is gone (recovery would refuse to start).
            if (null != journal)
            {
                journal.force();
            }
            else if (null != journalDirectory)
            {
                unforcedSegmentBase = JournalDirectory.forceSegments(journalDirectory, unforcedSegmentBase,
                    state.journalSequence());
            }
            snapshots.write(state);
            snapshotsTaken++;
        }
        catch (final RuntimeException | IOException ex)
        {
            snapshotFailures++;
            LOG.log(System.Logger.Level.WARNING, "snapshot at record " + state.journalSequence() + " not written (" +
                snapshotFailures + " so far); recovery replays from the one before", ex);
        }
    }

    /**
     * Writes the snapshot taken at the last snapshot point once the output it covers has left
     * ({@link EngineOutput#isSent}); a newer snapshot point replaces one still waiting. Call between
     * requests; costs a check when nothing waits.
     *
     * @return 1 when it wrote one, else 0.
     */
    public int writePendingSnapshot()
    {
        final EngineState state = pendingSnapshot;
        if (null == state || !output.isSent())
        {
            return 0;
        }
        pendingSnapshot = null;
        writeSnapshot(state);
        return 1;
    }

    /**
     * @return the {@link Journal#failures()} of the journal this engine appends to itself; 0 where
     *         a journaller appends (read late from other threads).
     */
    public long journalFailures()
    {
        final Journal appending = journal;
        return null == appending ? 0 : appending.failures();
    }

    /** @return snapshots that could not be written (read late from other threads). */
    public long snapshotFailures()
    {
        return snapshotFailures;
    }

    /** @return snapshots written since open. */
    public long snapshotsTaken()
    {
        return snapshotsTaken;
    }

    /** @return what opening read from the journal after the snapshot (null for a new journal). */
    public JournalReadResult recovery()
    {
        return recovery;
    }

    /**
     * @return the digest of everything sent: once what feeds it has caught up (see
     *         {@link MatchingEngine#digest()}).
     */
    public String digest()
    {
        return engine.digest().value();
    }

    /**
     * Closes the journal where this engine appends to one, and reports the final digest to the
     * digest listener (once what feeds it has caught up).
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            if (null != journal)
            {
                journal.close();
            }
        }
        finally
        {
            journal = null;
            // A journal that failed to close still lets the directory go: this process may open it again.
            if (null != engineLock)
            {
                engineLock.close();
                engineLock = null;
            }
        }
        engine.digest().valueRequested();
    }
}
