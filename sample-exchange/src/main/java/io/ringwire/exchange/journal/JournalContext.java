package io.ringwire.exchange.journal;

import io.ringwire.rdma.config.Settings;

import java.nio.file.Path;

/**
 * Typed configuration of a {@link Journal}: defaults, overridden by {@code ringwire.*} system
 * properties, overridden again by the setters, checked by {@link #conclude()} with a message naming
 * the property and the allowed values.
 *
 * <p>The segment length and the largest payload apply to a journal this context creates; an
 * existing journal keeps those it was created with (its {@value JournalDirectory#METADATA_FILE}
 * says which).
 *
 * <p>Threading: build on one thread, conclude, then share read-only.
 */
public final class JournalContext
{
    /** The journal directory; no default, since losing track of it loses the journal. */
    public static final String DIRECTORY_PROP = "ringwire.exchange.journal.dir";
    /** Bytes per segment file, a power of two; the largest record is this less its 8-byte header. */
    public static final String SEGMENT_LENGTH_PROP = "ringwire.exchange.journal.segment.bytes";
    /**
     * Default of {@link #SEGMENT_LENGTH_PROP}: 64 MiB, so that rolling to a new file (which allocates
     * and makes system calls on the appending thread) is rare, while a segment stays cheap to map.
     */
    public static final int DEFAULT_SEGMENT_LENGTH = 64 << 20;
    /**
     * The largest payload a record carries, at most the segment length less the header (unset: that
     * much). A longer append is refused. The journal's user declares it where it knows its largest
     * record: recovery then knows that a record a crash tore reaches no further, so that bytes past
     * it that look like a record are evidence of corruption, and bytes within it are not (the torn
     * payload, which a client may have shaped like a record, is).
     */
    public static final String MAX_PAYLOAD_LENGTH_PROP = "ringwire.exchange.journal.max.payload.bytes";

    private String directory = Settings.property(DIRECTORY_PROP, "");
    private String segmentLength = Settings.property(SEGMENT_LENGTH_PROP, Integer.toString(DEFAULT_SEGMENT_LENGTH));
    private String maxPayloadLength = Settings.property(MAX_PAYLOAD_LENGTH_PROP, "");

    private boolean concluded;
    private Path directoryValue;
    private int segmentLengthValue;
    private int maxPayloadLengthValue = -1;

    /**
     * Checks every setting.
     *
     * @return this.
     * @throws IllegalArgumentException naming the setting, its value and what is allowed.
     */
    public JournalContext conclude()
    {
        if (directory.isBlank())
        {
            throw Settings.invalid(DIRECTORY_PROP, directory, "is not set", "the path of the journal directory");
        }
        directoryValue = Path.of(directory.trim());
        segmentLengthValue = Settings.parsePowerOfTwo(SEGMENT_LENGTH_PROP, segmentLength,
            JournalFormat.MIN_SEGMENT_LENGTH, JournalFormat.MAX_SEGMENT_LENGTH);
        if (!maxPayloadLength.isBlank())
        {
            maxPayloadLengthValue = Settings.parseInt(MAX_PAYLOAD_LENGTH_PROP, maxPayloadLength.trim(), 0,
                JournalFormat.maxPayloadLength(segmentLengthValue),
                "0 to the segment length less the 8-byte record header (" +
                JournalFormat.maxPayloadLength(segmentLengthValue) + " here)");
        }
        concluded = true;
        return this;
    }

    /**
     * @param directory the journal directory (created if absent).
     * @return this.
     */
    public JournalContext directory(final Path directory)
    {
        checkNotConcluded();
        this.directory = directory.toString();
        return this;
    }

    /**
     * @return the journal directory.
     */
    public Path directory()
    {
        checkConcluded();
        return directoryValue;
    }

    /**
     * @param bytes bytes per segment file of a new journal, a power of two from 4 KiB to 1 GiB.
     * @return this.
     */
    public JournalContext segmentLength(final int bytes)
    {
        checkNotConcluded();
        this.segmentLength = Integer.toString(bytes);
        return this;
    }

    /**
     * @return bytes per segment file of a new journal.
     */
    public int segmentLength()
    {
        checkConcluded();
        return segmentLengthValue;
    }

    /**
     * @param bytes the largest payload a record of a new journal carries, from 0 to the segment
     *              length less the 8-byte record header.
     * @return this.
     */
    public JournalContext maxPayloadLength(final int bytes)
    {
        checkNotConcluded();
        this.maxPayloadLength = Integer.toString(bytes);
        return this;
    }

    /**
     * @return the largest payload a record of a new journal carries.
     */
    public int maxPayloadLength()
    {
        checkConcluded();
        return maxPayloadLengthValue < 0 ? JournalFormat.maxPayloadLength(segmentLengthValue) : maxPayloadLengthValue;
    }

    private void checkNotConcluded()
    {
        if (concluded)
        {
            throw new IllegalStateException("JournalContext is concluded");
        }
    }

    private void checkConcluded()
    {
        if (!concluded)
        {
            throw new IllegalStateException("call JournalContext.conclude() first");
        }
    }
}
