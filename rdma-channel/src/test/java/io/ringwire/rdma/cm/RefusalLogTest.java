package io.ringwire.rdma.cm;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RefusalLogTest
{
    private final List<String> warnings = new ArrayList<>();
    private final RefusalLog log = new RefusalLog(new System.Logger()
    {
        @Override
        public String getName()
        {
            return "test";
        }

        @Override
        public boolean isLoggable(final Level level)
        {
            return true;
        }

        @Override
        public void log(final Level level, final ResourceBundle bundle, final String message, final Throwable thrown)
        {
            warnings.add(message);
        }

        @Override
        public void log(final Level level, final ResourceBundle bundle, final String format, final Object... params)
        {
            warnings.add(format);
        }
    });

    @Test
    void aSourceIsWarnedAboutOnceAnIntervalAndTheRestAreCounted() throws Exception
    {
        final InetAddress source = InetAddress.getByAddress(new byte[]{ 10, 0, 0, 1 });
        for (int i = 0; i < 100; i++)
        {
            log.warn(source, "refused " + i);
        }
        assertEquals(List.of("refused 0"), warnings);
    }

    @Test
    void refusalsFromEverNewAddressesKeepTheLogBoundedAndStillWarn() throws Exception
    {
        // One IPv6 /64 is one host's: it can refuse-flood from 2^64 source addresses.
        final int sources = 3 * RefusalLog.MAX_SOURCES;
        for (int i = 0; i < sources; i++)
        {
            final byte[] address = new byte[16];
            address[0] = 0x20;
            address[1] = 0x01;
            address[14] = (byte)(i >>> 8);
            address[15] = (byte)i;
            log.warn(InetAddress.getByAddress(address), "refused " + i);
        }
        assertTrue(log.sources() <= RefusalLog.MAX_SOURCES, log.sources() + " sources remembered");
        assertEquals(RefusalLog.MAX_SOURCES + 1, warnings.size(),
            "each remembered source once, and one for all the others within the interval");
    }
}
