package io.ringwire.messaging.status;

import io.ringwire.messaging.MessagingContext;
import io.ringwire.rdma.config.Settings;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

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
    /** Larger than any counters file this version writes, and than a heap array may be. */
    private static final long MAX_FILE_BYTES = 1L << 30;
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
     * @param args see the class comment.
     * @throws Exception when interrupted.
     */
    public static void main(final String[] args) throws Exception
    {
        Path directory = Path.of(Settings.property(MessagingContext.COUNTERS_DIR_PROP, MessagingContext.DEFAULT_COUNTERS_DIR));
        long intervalMs = 1000;
        long count = Long.MAX_VALUE;
        try
        {
            for (int i = 0; i < args.length; i++)
            {
                switch (args[i])
                {
                    case "--dir" -> directory = Path.of(value(args, ++i, "--dir", "a directory"));
                    case "--interval" -> intervalMs = Settings.parseLong("--interval", value(args, ++i, "--interval",
                        "milliseconds"), 1, 3_600_000, "1 to 3600000 milliseconds");
                    case "--count" -> count = Settings.parseLong("--count", value(args, ++i, "--count", "a count"), 1,
                        Long.MAX_VALUE, "1 or more snapshots");
                    case "--once" -> count = 1;
                    case "--help", "-h" ->
                    {
                        System.out.println(USAGE);
                        return;
                    }
                    default -> throw new IllegalArgumentException("unknown option '" + args[i] +
                        "'; allowed: --dir DIR, --interval MS, --count N, --once");
                }
            }
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("ringwire stat: " + ex.getMessage());
            System.err.println(USAGE);
            System.exit(2);
        }
        for (long round = 0; round < count; round++)
        {
            if (round > 0)
            {
                Thread.sleep(intervalMs);
            }
            print(directory, System.out);
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
        final List<Path> files = new ArrayList<>();
        try (var stream = Files.list(directory))
        {
            stream.filter(p -> p.getFileName().toString().endsWith(CountersFile.SUFFIX)).sorted().forEach(files::add);
        }
        int shown = 0;
        for (final Path file : files)
        {
            if (printFile(file, out))
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

    private static boolean printFile(final Path file, final PrintStream out)
    {
        // Read, not mapped: a file its owner (or anyone who may write it) truncates while this reads
        // it would fault a mapping's next load, and end the tool; a read just comes back short.
        final UnsafeBuffer content;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final long size = channel.size();
            if (size < CountersFile.HEADER_LENGTH)
            {
                return false;
            }
            if (size > MAX_FILE_BYTES)
            {
                out.println(file + " is malformed: " + size + " bytes, more than any counters file has");
                return false;
            }
            final ByteBuffer bytes = ByteBuffer.allocate((int)size);
            while (bytes.hasRemaining() && channel.read(bytes) >= 0)
            {
                // a file cut short meanwhile ends the loop at its end
            }
            if (bytes.position() < CountersFile.HEADER_LENGTH)
            {
                return false;
            }
            content = new UnsafeBuffer(bytes.array(), 0, bytes.position());
        }
        catch (final IOException ex)
        {
            return false; // the process ended meanwhile
        }
        if (content.getLong(CountersFile.MAGIC_OFFSET) != CountersFile.MAGIC)
        {
            return false;
        }
        final int pid = content.getInt(CountersFile.PID_OFFSET);
        if (ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true))
        {
            return false;
        }
        final int metadataLength = content.getInt(CountersFile.METADATA_LENGTH_OFFSET);
        final int valuesLength = content.getInt(CountersFile.VALUES_LENGTH_OFFSET);
        if (metadataLength < 0 || valuesLength < 0 ||
            (long)CountersFile.HEADER_LENGTH + metadataLength + valuesLength > content.capacity())
        {
            out.println("process " + pid + ": " + file + " is malformed: its header gives " + metadataLength +
                " bytes of metadata and " + valuesLength + " of values, the file has " + content.capacity());
            return false;
        }
        final CountersReader reader = new CountersReader(
            new UnsafeBuffer(content, CountersFile.HEADER_LENGTH, metadataLength),
            new UnsafeBuffer(content, CountersFile.HEADER_LENGTH + metadataLength, valuesLength));
        // Read in full before printing: a file whose records point outside it shows no half list.
        final StringBuilder lines = new StringBuilder();
        try
        {
            reader.forEach((counterId, typeId, keyBuffer, label) -> lines.append(String.format(
                "  %4d %,20d  %s%n", counterId, reader.getCounterValue(counterId), label)));
        }
        catch (final IndexOutOfBoundsException ex)
        {
            out.println("process " + pid + ": " + file + " is malformed: a counter's record lies outside it (" +
                ex.getMessage() + ")");
            return false;
        }
        out.println("process " + pid + " (started " +
            Instant.ofEpochMilli(content.getLong(CountersFile.START_TIME_OFFSET)) + ")");
        out.print(lines);
        return true;
    }
}
