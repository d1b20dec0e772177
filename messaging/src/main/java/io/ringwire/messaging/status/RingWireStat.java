package io.ringwire.messaging.status;

import io.ringwire.messaging.MessagingContext;
import io.ringwire.rdma.config.Settings;
import io.ringwire.rdma.host.RegularFiles;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code ringwire stat}: prints the counters of every running RingWire process, live, like
 * AeronStat. Reads the counters files in {@value MessagingContext#COUNTERS_DIR_PROP}'s directory
 * (read with {@code read}, never mapped or written).
 *
 * <pre>
 * usage: ringwire stat [--dir DIR] [--interval MS] [--count N | --once]
 * </pre>
 */
public final class RingWireStat
{
    private static final String USAGE = "usage: ringwire stat [--dir DIR] [--interval MS] [--count N | --once]";

    private RingWireStat()
    {
    }

    private static String value(final String[] args, final int index, final String option, final String what)
    {
        if (index >= args.length)
        {
            throw new IllegalArgumentException(option + " needs a value: " + what);
        }
        return args[index];
    }

    /**
     * What the command line asks for.
     *
     * @param directory  the counters files' directory.
     * @param intervalMs between two snapshots.
     * @param count      snapshots to print.
     */
    record Options(Path directory, long intervalMs, long count)
    {
    }

    /**
     * @param args             the command line.
     * @param defaultDirectory the directory without {@code --dir}.
     * @return the options, or null for {@code --help}.
     * @throws IllegalArgumentException naming an option unknown, without its value, out of range, or
     *                                  given twice ({@code --count} and {@code --once} are one option).
     */
    static Options parse(final String[] args, final Path defaultDirectory)
    {
        Path directory = defaultDirectory;
        long intervalMs = 1000;
        long count = Long.MAX_VALUE;
        // Refused, not settled by which came last: the user would watch another directory than meant.
        final Map<String, String> given = new HashMap<>();
        for (int i = 0; i < args.length; i++)
        {
            final String arg = args[i];
            final String earlier = given.putIfAbsent("--once".equals(arg) ? "--count" : arg, arg);
            if (null != earlier && arg.startsWith("--"))
            {
                throw new IllegalArgumentException(earlier.equals(arg) ? arg + " is given twice" :
                    earlier + " and " + arg + " are given together");
            }
            switch (arg)
            {
                case "--dir" -> directory = Path.of(value(args, ++i, "--dir", "a directory"));
                case "--interval" -> intervalMs = Settings.parseLong("--interval", value(args, ++i, "--interval",
                    "milliseconds"), 1, 3_600_000, "1 to 3600000 milliseconds");
                case "--count" -> count = Settings.parseLong("--count", value(args, ++i, "--count", "a count"), 1,
                    Long.MAX_VALUE, "1 or more snapshots");
                case "--once" -> count = 1;
                case "--help", "-h" ->
                {
                    return null;
                }
                default -> throw new IllegalArgumentException("unknown option '" + arg +
                    "'; allowed: --dir DIR, --interval MS, --count N, --once");
            }
        }
        return new Options(directory, intervalMs, count);
    }

    /**
     * @param args see the class comment.
     * @throws Exception when interrupted.
     */
    public static void main(final String[] args) throws Exception
    {
        final Options options;
        try
        {
            options = parse(args, Path.of(Settings.property(MessagingContext.COUNTERS_DIR_PROP,
                MessagingContext.DEFAULT_COUNTERS_DIR)));
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("ringwire stat: " + ex.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        if (null == options)
        {
            System.out.println(USAGE);
            return;
        }
        final Path directory = options.directory();
        final long intervalMs = options.intervalMs();
        final long count = options.count();
        for (long round = 0; round < count; round++)
        {
            if (round > 0)
            {
                Thread.sleep(intervalMs);
            }
            try
            {
                print(directory, System.out);
            }
            catch (final IOException ex)
            {
                System.err.println("ringwire stat: cannot list " + directory + ": " + ex.getMessage());
                System.exit(1);
            }
        }
    }

    /**
     * Prints one snapshot of every process's counters.
     *
     * @param directory counters directory.
     * @param out       where to print.
     * @return the number of processes shown.
     * @throws IOException when the directory cannot be listed.
     */
    public static int print(final Path directory, final PrintStream out) throws IOException
    {
        out.println(Instant.now() + " counters in " + directory);
        if (!Files.isDirectory(directory))
        {
            out.println("  no RingWire process has run here (directory missing)");
            return 0;
        }
        if (null != RegularFiles.unavailableReason())
        {
            out.println("  cannot read counters files here: " + RegularFiles.unavailableReason());
            return 0;
        }
        final List<Path> files = new ArrayList<>();
        try (var stream = Files.list(directory))
        {
            stream.filter(p -> p.getFileName().toString().endsWith(CountersFile.SUFFIX)).sorted().forEach(files::add);
        }
        final Chunks chunks = new Chunks();
        int shown = 0;
        for (final Path file : files)
        {
            if (printFile(file, out, chunks))
            {
                shown++;
            }
        }
        if (shown == 0)
        {
            out.println("  no running RingWire process");
        }
        return shown;
    }

    private static boolean printFile(final Path file, final PrintStream out, final Chunks chunks)
    {
        final StringBuilder lines = new StringBuilder();
        final int pid;
        final long startTime;
        try
        {
            // Read, not mapped: a file its owner (or anyone who may write it) truncates while this
            // reads it would fault a mapping's next load, and end the tool; a read comes back short.
            // Only a regular file is opened: a FIFO put in the directory, or swapped in for a
            // counters file, would hold a plain open until a writer opened it, and a device's open
            // alone may act.
            try (FileChannel channel = RegularFiles.openForReading(file))
            {
                if (!chunks.read(channel, chunks.header, 0, CountersFile.HEADER_LENGTH))
                {
                    return false; // being created, or cut meanwhile
                }
                final UnsafeBuffer header = chunks.header;
                if (header.getLong(CountersFile.MAGIC_OFFSET) != CountersFile.MAGIC)
                {
                    return false;
                }
                pid = header.getInt(CountersFile.PID_OFFSET);
                startTime = header.getLong(CountersFile.START_TIME_OFFSET);
                if (!CountersFile.isOwnerAlive(pid, header.getLong(CountersFile.OWNER_START_TICKS_OFFSET)))
                {
                    return false; // its process ended (and the pid may have been given again since)
                }
                final int version = header.getInt(CountersFile.VERSION_OFFSET);
                if (version != CountersFile.VERSION)
                {
                    out.println("process " + pid + ": " + file + " is a counters file of layout version " + version +
                        "; this stat reads version " + CountersFile.VERSION + ": run the stat of that process's " +
                        "RingWire");
                    return false;
                }
                final int metadataLength = header.getInt(CountersFile.METADATA_LENGTH_OFFSET);
                final int valuesLength = header.getInt(CountersFile.VALUES_LENGTH_OFFSET);
                final long size = channel.size();
                if (!isLayout(metadataLength, valuesLength) ||
                    (long)CountersFile.HEADER_LENGTH + metadataLength + valuesLength > size)
                {
                    out.println("process " + pid + ": " + file + " is malformed: its header gives " + metadataLength +
                        " bytes of metadata and " + valuesLength + " of values, the file has " + size);
                    return false;
                }
                try
                {
                    if (!readCounters(channel, metadataLength, chunks, lines))
                    {
                        return false; // cut meanwhile
                    }
                }
                catch (final MalformedRecordException ex)
                {
                    out.println("process " + pid + ": " + file + " is malformed: " + ex.getMessage());
                    return false;
                }
            }
        }
        catch (final NoSuchFileException | RegularFiles.NotRegularFileException ex)
        {
            return false; // the process ended meanwhile, or the name leads to no regular file
        }
        catch (final IOException ex)
        {
            // Permissions, most likely: the process may be running, so it is not passed over in silence.
            out.println("  " + file + ": cannot read it (" + ex.getMessage() + "): run stat as the user " +
                "the processes run as");
            return false;
        }
        out.println("process " + pid + " (started " + Instant.ofEpochMilli(startTime) + ")");
        out.print(lines);
        return true;
    }

    /**
     * @return whether the lengths are whole records and values, within this version's counters
     *         file, with a value for every record.
     */
    private static boolean isLayout(final int metadataLength, final int valuesLength)
    {
        return metadataLength > 0 && valuesLength > 0 &&
            metadataLength % CountersReader.METADATA_LENGTH == 0 && valuesLength % CountersReader.COUNTER_LENGTH == 0 &&
            metadataLength <= CountersFile.METADATA_LENGTH && valuesLength <= CountersFile.VALUES_LENGTH &&
            valuesLength / CountersReader.COUNTER_LENGTH >= metadataLength / CountersReader.METADATA_LENGTH;
    }

    /**
     * Appends a line for each allocated counter, reading the records a chunk at a time up to the
     * first never used (the file is mostly empty: only that much of it is read).
     *
     * @return false when the file was cut meanwhile.
     * @throws MalformedRecordException naming a record that breaks the layout.
     */
    private static boolean readCounters(final FileChannel channel, final int metadataLength, final Chunks chunks,
        final StringBuilder lines) throws IOException, MalformedRecordException
    {
        final int records = metadataLength / CountersReader.METADATA_LENGTH;
        final long valuesAt = CountersFile.HEADER_LENGTH + (long)metadataLength;
        for (int first = 0; first < records; first += Chunks.RECORDS)
        {
            final int count = Math.min(Chunks.RECORDS, records - first);
            if (!chunks.read(channel, chunks.metadata,
                CountersFile.HEADER_LENGTH + (long)first * CountersReader.METADATA_LENGTH,
                count * CountersReader.METADATA_LENGTH) ||
                !chunks.read(channel, chunks.values, valuesAt + (long)first * CountersReader.COUNTER_LENGTH,
                    count * CountersReader.COUNTER_LENGTH))
            {
                return false;
            }
            for (int i = 0; i < count; i++)
            {
                final int record = i * CountersReader.METADATA_LENGTH;
                final int state = chunks.metadata.getInt(record);
                if (state == CountersReader.RECORD_UNUSED)
                {
                    return true;
                }
                if (state != CountersReader.RECORD_ALLOCATED)
                {
                    continue;
                }
                final int labelLength = chunks.metadata.getInt(record + CountersReader.LABEL_OFFSET);
                if (labelLength < 0 || labelLength > CountersReader.MAX_LABEL_LENGTH)
                {
                    throw new MalformedRecordException("counter " + (first + i) + "'s label length " + labelLength +
                        " is outside 0.." + CountersReader.MAX_LABEL_LENGTH);
                }
                lines.append(String.format("  %4d %,20d  ", first + i,
                    chunks.values.getLong(i * CountersReader.COUNTER_LENGTH)));
                final int label = record + CountersReader.LABEL_OFFSET + Integer.BYTES;
                for (int c = 0; c < labelLength; c++)
                {
                    final byte b = chunks.metadata.getByte(label + c);
                    // Not the writer's bytes as they are: a label must not forge a line or steer the terminal.
                    lines.append(b >= 0x20 && b < 0x7f ? (char)b : '?');
                }
                lines.append(System.lineSeparator());
            }
        }
        return true;
    }

    /** A counter's record that breaks the layout: the file is reported and skipped. */
    private static final class MalformedRecordException extends Exception
    {
        private static final long serialVersionUID = 1L;

        MalformedRecordException(final String message)
        {
            super(message, null, false, false);
        }
    }

    /** The buffers one listing reads the files into, chunk by chunk. */
    private static final class Chunks
    {
        /** Records read at once. */
        static final int RECORDS = 128;

        final UnsafeBuffer header = new UnsafeBuffer(new byte[CountersFile.HEADER_LENGTH]);
        final UnsafeBuffer metadata = new UnsafeBuffer(new byte[RECORDS * CountersReader.METADATA_LENGTH]);
        final UnsafeBuffer values = new UnsafeBuffer(new byte[RECORDS * CountersReader.COUNTER_LENGTH]);

        /**
         * Reads {@code length} bytes of the file at {@code position} into the start of {@code into}.
         *
         * @return false when the file ends first (cut meanwhile).
         */
        boolean read(final FileChannel channel, final UnsafeBuffer into, final long position, final int length)
            throws IOException
        {
            final ByteBuffer bytes = ByteBuffer.wrap(into.byteArray(), 0, length);
            while (bytes.hasRemaining())
            {
                if (channel.read(bytes, position + bytes.position()) < 0)
                {
                    return false;
                }
            }
            return true;
        }
    }
}
