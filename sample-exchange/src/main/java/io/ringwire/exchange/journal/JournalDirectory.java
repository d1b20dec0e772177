package io.ringwire.exchange.journal;

import io.ringwire.rdma.config.Settings;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.MappedByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.TRUNCATE_EXISTING;
import static java.nio.file.StandardOpenOption.WRITE;

/**
 * The files of a journal directory, so that a tool given only the directory can read it:
 *
 * <ul>
 *   <li>{@value #METADATA_FILE}: the format version, the segment length and the largest payload,
 *       written once when the journal is created;</li>
 *   <li>{@value #SETTINGS_FILE}: the application's own {@code key=value} settings (the engine's
 *       instrument configuration, say), which replay needs beside the records
 *       ({@link #writeSettings}, {@link #readSettings});</li>
 *   <li>{@code segment-<first sequence, 20 digits>.journal}: the segments, in sequence order (see
 *       {@link JournalFormat}); a segment's name gives the sequence of its first record, so a reader
 *       starting at a sequence opens the one segment that holds it;</li>
 *   <li>{@value #LOCK_FILE}: locked by the one process appending;</li>
 *   <li>beside them, the application's own files: the engine's snapshots and {@code engine.lock},
 *       which the live engine holds from before its recovery.</li>
 * </ul>
 *
 * Both properties files are replaced atomically (written beside, forced, renamed over), so a reader
 * or a crash sees the old file or the new one, never half of one.
 *
 * <p>Threading: stateless; any thread. Setup paths only: these calls allocate and do I/O.
 */
public final class JournalDirectory
{
    /** The journal's own metadata: format version, segment length and largest payload. */
    public static final String METADATA_FILE = "journal.properties";
    /** The application's settings, stored with the journal. */
    public static final String SETTINGS_FILE = "settings.properties";
    /** Locked by the process appending, so that there is one at a time. */
    public static final String LOCK_FILE = "journal.lock";

    static final String FORMAT_VERSION_KEY = "format.version";
    static final String SEGMENT_LENGTH_KEY = "segment.length";
    /** Absent in a journal made before it existed: the segment's largest then. */
    static final String MAX_PAYLOAD_LENGTH_KEY = "max.payload.length";

    private static final Pattern SEGMENT_NAME = Pattern.compile("^segment-(\\d{20})\\.journal$");
    private static final String TEMPORARY_SUFFIX = ".tmp";

    private JournalDirectory()
    {
    }

    /**
     * Replaces the application's settings stored in a journal directory, atomically.
     *
     * @param directory the journal directory (created if absent).
     * @param settings  keys and values to store; they replace whatever was stored before.
     * @throws UncheckedIOException naming the file when it cannot be written.
     */
    public static void writeSettings(final Path directory, final Map<String, String> settings)
    {
        final Properties properties = new Properties();
        properties.putAll(settings);
        writeAtomically(directory, SETTINGS_FILE, properties, "application settings stored with the journal");
    }

    /**
     * @param directory the journal directory.
     * @return the application's settings stored there, sorted by key; empty when none were stored.
     * @throws UncheckedIOException naming the file when it exists but cannot be read.
     */
    public static Map<String, String> readSettings(final Path directory)
    {
        final Path file = directory.resolve(SETTINGS_FILE);
        final Map<String, String> settings = new TreeMap<>();
        if (Files.exists(file))
        {
            final Properties properties = read(file);
            for (final String key : properties.stringPropertyNames())
            {
                settings.put(key, properties.getProperty(key));
            }
        }
        return settings;
    }

    /**
     * What a journal's {@value #METADATA_FILE} says.
     *
     * @param segmentLength    bytes per segment file.
     * @param maxPayloadLength the largest payload a record of this journal carries, which also
     *                         bounds how far a record torn by a crash reaches (see {@link MappedSegment}).
     */
    record Metadata(int segmentLength, int maxPayloadLength)
    {
    }

    /**
     * Reads the metadata of the journal in {@code directory}, checking its format version.
     *
     * @param directory a journal directory.
     * @return its segment length and largest payload.
     * @throws IllegalArgumentException when the directory holds no journal, or one this code cannot read.
     */
    static Metadata readMetadata(final Path directory)
    {
        final Path file = directory.resolve(METADATA_FILE);
        if (!Files.exists(file))
        {
            throw new IllegalArgumentException("no journal in " + directory + ": " + METADATA_FILE + " is missing");
        }
        final Properties metadata = read(file);
        final String name = file + " " + FORMAT_VERSION_KEY;
        Settings.parseInt(name, metadata.getProperty(FORMAT_VERSION_KEY), JournalFormat.FORMAT_VERSION,
            JournalFormat.FORMAT_VERSION, Integer.toString(JournalFormat.FORMAT_VERSION) + " (this build's format)");
        final int segmentLength = Settings.parsePowerOfTwo(file + " " + SEGMENT_LENGTH_KEY,
            metadata.getProperty(SEGMENT_LENGTH_KEY), JournalFormat.MIN_SEGMENT_LENGTH, JournalFormat.MAX_SEGMENT_LENGTH);
        final int segmentsLargest = JournalFormat.maxPayloadLength(segmentLength);
        final String maxPayload = metadata.getProperty(MAX_PAYLOAD_LENGTH_KEY);
        final int maxPayloadLength = null == maxPayload ? segmentsLargest :
            Settings.parseInt(file + " " + MAX_PAYLOAD_LENGTH_KEY, maxPayload, 0, segmentsLargest,
                "0 to " + segmentsLargest + " (the segment length less the record header)");
        return new Metadata(segmentLength, maxPayloadLength);
    }

    /**
     * Writes the metadata of a new journal.
     *
     * @param directory the journal directory.
     * @param metadata  its segment length and largest payload.
     */
    static void writeMetadata(final Path directory, final Metadata metadata)
    {
        final Properties properties = new Properties();
        properties.setProperty(FORMAT_VERSION_KEY, Integer.toString(JournalFormat.FORMAT_VERSION));
        properties.setProperty(SEGMENT_LENGTH_KEY, Integer.toString(metadata.segmentLength()));
        properties.setProperty(MAX_PAYLOAD_LENGTH_KEY, Integer.toString(metadata.maxPayloadLength()));
        writeAtomically(directory, METADATA_FILE, properties, "RingWire journal: see JournalFormat");
    }

    /**
     * @param directory a directory, or a path where there is none.
     * @return true when it is a directory that holds journal segments.
     */
    public static boolean holdsSegments(final Path directory)
    {
        return Files.isDirectory(directory) && segmentBases(directory).length > 0;
    }

    /**
     * @param directory a journal directory.
     * @return the first sequences of its segments, ascending (from the file names).
     */
    static long[] segmentBases(final Path directory)
    {
        try (Stream<Path> files = Files.list(directory))
        {
            return files.map(file -> SEGMENT_NAME.matcher(file.getFileName().toString()))
                .filter(Matcher::matches)
                .mapToLong(name -> segmentBase(directory, name))
                .sorted()
                .toArray();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot list the journal directory " + directory, ex);
        }
    }

    /** A segment's name carries 20 digits: past a long's range it is no segment this journal wrote. */
    private static long segmentBase(final Path directory, final Matcher name)
    {
        try
        {
            return Long.parseLong(name.group(1));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("the file " + directory.resolve(name.group()) + " is named as a " +
                "segment whose first sequence is past any a journal reaches: not a segment of this journal; " +
                "move it out of the directory");
        }
    }

    /**
     * @param directory    a journal directory.
     * @param baseSequence the sequence of the segment's first record.
     * @return the segment's file.
     */
    static Path segmentFile(final Path directory, final long baseSequence)
    {
        // Locale.ROOT: a default locale with other digits (Arabic-Indic, say) would name a file the
        // segment pattern never matches, and the journal would read as empty.
        return directory.resolve(String.format(Locale.ROOT, "segment-%020d.journal", baseSequence));
    }

    /**
     * Opens a segment file for the writer, creating it if absent.
     *
     * @param file the segment.
     * @return the channel, read and write.
     * @throws IOException when the file system refuses.
     */
    static FileChannel openSegment(final Path file) throws IOException
    {
        return FileChannel.open(file, CREATE, READ, WRITE);
    }

    /**
     * Opens the writer's segment file again, which must still be there: one made anew under its
     * name would not be the file the writer has mapped.
     *
     * @param file the segment.
     * @return the channel, read and write.
     * @throws IOException when the file is gone or the file system refuses.
     */
    static FileChannel reopenSegment(final Path file) throws IOException
    {
        return FileChannel.open(file, READ, WRITE);
    }

    /**
     * Maps a segment file shared; mapping read-write past its end grows it (with zeros). An interrupt
     * pending on the caller is set aside for it, as in {@link #force}: the JDK fails a mapping by an
     * interrupted thread (a tailer's or reader's on its way to close), which would end its reading.
     *
     * @param file   the segment file (created if absent when {@code mode} is read-write).
     * @param mode   read-only for readers, read-write for the writer.
     * @param length bytes to map from offset 0.
     * @return the mapping.
     * @throws IOException when the file cannot be opened or mapped.
     */
    static MappedByteBuffer map(final Path file, final FileChannel.MapMode mode, final int length) throws IOException
    {
        final boolean interrupted = setInterruptAside();
        try (FileChannel channel = FileChannel.MapMode.READ_ONLY == mode ?
            FileChannel.open(file, READ) : FileChannel.open(file, CREATE, READ, WRITE))
        {
            return channel.map(mode, 0, length);
        }
        finally
        {
            restoreInterrupt(interrupted);
        }
    }

    /**
     * Refuses a journal an engine is appending to: a reader would take the record being written for
     * a torn one and report a prefix as the whole. Takes the lock only for the instant of the check,
     * so a reader holds no engine off for longer.
     *
     * @param directory the journal's directory.
     * @throws IllegalStateException when a process holds the journal's lock.
     */
    public static void requireNoWriter(final Path directory)
    {
        LockFile.requireUnheld(directory, LOCK_FILE,
            "the journal in " + directory + " is open for appending in this process: close it first, since a " +
                "record being written reads as torn",
            "the journal in " + directory + " is open for appending (" + LOCK_FILE + " is locked): stop its " +
                "engine, or read a copy, since a record being written reads as torn");
    }

    /**
     * Forces a file's data, or a directory's entries, to the storage device. An interrupt pending
     * on the caller is set aside for it (the JDK fails a file operation of an interrupted thread)
     * and left as it was.
     *
     * @param path a file or a directory.
     * @throws IOException when it cannot be opened or forced.
     */
    public static void force(final Path path) throws IOException
    {
        forceOne(path);
    }

    /**
     * Forces to the device the segments that hold records below {@code sequence}, from the one that
     * starts at {@code fromBase}: what a snapshot at {@code sequence} stands on. Any thread; the
     * writer may append meanwhile. An interrupt pending on the caller is set aside, as in {@link #force}.
     *
     * @param directory the journal directory.
     * @param fromBase  the first segment's base that may not be forced yet (0 at first).
     * @param sequence  records below it must be on the device.
     * @return the base of the last segment forced, which may take more records: where to start next.
     * @throws IOException when the device refuses.
     */
    public static long forceSegments(final Path directory, final long fromBase, final long sequence) throws IOException
    {
        long last = fromBase;
        boolean newSegments = false;
        for (final long base : segmentBases(directory))
        {
            if (base >= fromBase && base < sequence)
            {
                forceOne(segmentFile(directory, base));
                newSegments |= base != fromBase;
                last = base;
            }
        }
        if (newSegments)
        {
            forceOne(directory); // their names too
        }
        return last;
    }

    private static void forceOne(final Path path) throws IOException
    {
        final boolean interrupted = setInterruptAside();
        try (FileChannel channel = FileChannel.open(path, READ))
        {
            channel.force(true);
        }
        finally
        {
            restoreInterrupt(interrupted);
        }
    }

    /**
     * Clears an interrupt pending on this thread, for a file operation the JDK would otherwise fail
     * (and close the channel of).
     *
     * @return whether one was pending: give it to {@link #restoreInterrupt} after the operation.
     */
    static boolean setInterruptAside()
    {
        return Thread.interrupted();
    }

    /** Leaves the interrupt {@link #setInterruptAside} cleared as it was. */
    static void restoreInterrupt(final boolean interrupted)
    {
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }

    static void closeQuietly(final FileChannel channel)
    {
        if (null != channel)
        {
            try
            {
                channel.close();
            }
            catch (final IOException ignore)
            {
                // nothing more to release
            }
        }
    }

    private static Properties read(final Path file)
    {
        final Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8))
        {
            properties.load(reader);
            return properties;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read " + file + " (" + ex.getMessage() + ")", ex);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(file + " is not a properties file: " + ex.getMessage(), ex);
        }
    }

    private static void writeAtomically(final Path directory, final String name, final Properties properties,
        final String comment)
    {
        final Path file = directory.resolve(name);
        final Path temporary = directory.resolve(name + TEMPORARY_SUFFIX);
        try
        {
            Files.createDirectories(directory);
            try (FileChannel channel = FileChannel.open(temporary, CREATE, WRITE, TRUNCATE_EXISTING);
                Writer writer = Channels.newWriter(channel, StandardCharsets.UTF_8))
            {
                properties.store(writer, comment);
                writer.flush();
                channel.force(true);
            }
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            force(directory);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write " + file + " (" + ex.getMessage() + ")", ex);
        }
    }

    /**
     * @param bases segment first sequences, ascending.
     * @param sequence a sequence.
     * @return the index of the segment that would hold {@code sequence}: the last whose first
     *         sequence is at most it, or -1 when it comes before the first segment.
     */
    static int segmentHolding(final long[] bases, final long sequence)
    {
        final int found = Arrays.binarySearch(bases, sequence);
        return found >= 0 ? found : -found - 2;
    }
}
