package io.ringwire.perf.perftest;

import java.util.Locale;

/**
 * The perftest program on the other side.
 */
public enum PerftestTest
{
    /** {@code ib_write_lat}: WRITE ping-pong, each side polling its buffer's last byte. */
    LAT(2, 2, 1000),
    /** {@code ib_write_bw}: the client streams WRITEs, the server holds the buffer. */
    BW(1, 65536, 5000);

    private final int keysBeforeConnect;
    private final int defaultSize;
    private final int defaultIterations;

    PerftestTest(final int keysBeforeConnect, final int defaultSize, final int defaultIterations)
    {
        this.keysBeforeConnect = keysBeforeConnect;
        this.defaultSize = defaultSize;
        this.defaultIterations = defaultIterations;
    }

    /**
     * @return key exchanges before the queue pairs connect.
     */
    public int keysBeforeConnect()
    {
        return keysBeforeConnect;
    }

    /**
     * @return perftest's default message size for the test, bytes.
     */
    public int defaultSize()
    {
        return defaultSize;
    }

    /**
     * @return perftest's default iterations for the test.
     */
    public int defaultIterations()
    {
        return defaultIterations;
    }

    /**
     * @return the name on the command line ({@code lat}, {@code bw}).
     */
    public String optionName()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}
