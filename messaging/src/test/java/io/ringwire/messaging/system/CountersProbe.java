package io.ringwire.messaging.system;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads one process's messaging counters from its counters file, {@code <dir>/<pid>.counters}, as
 * {@code ringwire stat} does (the layout CountersFile documents: a 64-byte header whose int at 24 is
 * the metadata length and at 28 the values length, then agrona's metadata and values). Read-only.
 */
final class CountersProbe implements AutoCloseable
{
    private static final int HEADER_LENGTH = 64;
    private static final int METADATA_LENGTH_OFFSET = 24;
    private static final int VALUES_LENGTH_OFFSET = 28;

    private final MappedByteBuffer mapped;
    private final CountersReader reader;

    private CountersProbe(final MappedByteBuffer mapped)
    {
        this.mapped = mapped;
        final UnsafeBuffer header = new UnsafeBuffer(mapped, 0, HEADER_LENGTH);
        final int metadataLength = header.getInt(METADATA_LENGTH_OFFSET);
        final int valuesLength = header.getInt(VALUES_LENGTH_OFFSET);
        this.reader = new CountersReader(new UnsafeBuffer(mapped, HEADER_LENGTH, metadataLength),
            new UnsafeBuffer(mapped, HEADER_LENGTH + metadataLength, valuesLength));
    }

    /**
     * @param countersDirectory the context's counters directory.
     * @param pid               the process (it must have opened a publication or subscription).
     * @return a probe of its counters.
     */
    static CountersProbe of(final Path countersDirectory, final long pid)
    {
        final Path file = countersDirectory.resolve(pid + ".counters");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            return new CountersProbe(channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size()));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("no counters file " + file, ex);
        }
    }

    /**
     * @param labelPrefix e.g. {@code "pub stream=1"}.
     * @param labelSuffix e.g. {@code "connects"}.
     * @return the sum of the values of the allocated counters whose label has that prefix and suffix
     *         (several when several publications match).
     */
    long sum(final String labelPrefix, final String labelSuffix)
    {
        final long[] total = { 0 };
        reader.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith(labelPrefix) && label.endsWith(labelSuffix))
            {
                total[0] += reader.getCounterValue(counterId);
            }
        });
        return total[0];
    }

    /**
     * @return one line per counter of the process whose value is not zero ({@code label = value}),
     *         for a failing test's diagnostics; a line saying why when its file cannot be read (the
     *         process never opened one, or removed it on exit).
     */
    static String nonZero(final Path countersDirectory, final long pid)
    {
        try (CountersProbe probe = of(countersDirectory, pid))
        {
            final StringBuilder lines = new StringBuilder();
            probe.reader.forEach((counterId, typeId, keyBuffer, label) ->
            {
                final long value = probe.reader.getCounterValue(counterId);
                if (value != 0)
                {
                    lines.append(label).append(" = ").append(value).append('\n');
                }
            });
            return lines.toString();
        }
        catch (final RuntimeException ex)
        {
            return "(" + ex.getMessage() + ")\n";
        }
    }

    @Override
    public void close()
    {
        IoUtil.unmap(mapped);
    }
}
