package io.ringwire.rdma.ibverbs;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LockedMemoryLimitTest
{
    private static final String LIMITS =
        "Limit                     Soft Limit           Hard Limit           Units     \n" +
        "Max cpu time              unlimited            unlimited            seconds   \n" +
        "Max locked memory         %s             %s             bytes     \n" +
        "Max address space         unlimited            unlimited            bytes     \n";

    @Test
    void theSoftLimitIsReadInBytes()
    {
        assertEquals(8_388_608, LockedMemoryLimit.parse(String.format(LIMITS, "8388608", "16777216")));
        assertEquals(LockedMemoryLimit.UNLIMITED, LockedMemoryLimit.parse(String.format(LIMITS, "unlimited", "unlimited")));
        assertEquals(LockedMemoryLimit.UNKNOWN, LockedMemoryLimit.parse("Limit Soft Hard Units\n"));
    }

    @Test
    void limitsAreDescribedForPeople()
    {
        assertEquals("8388608 bytes (8 MiB)", LockedMemoryLimit.describe(8_388_608));
        assertEquals("unlimited", LockedMemoryLimit.describe(LockedMemoryLimit.UNLIMITED));
        assertEquals("64 KiB", LockedMemoryLimit.humanBytes(65_536));
        assertEquals("1.5 GiB", LockedMemoryLimit.humanBytes(3L << 29));
        assertEquals("100 bytes", LockedMemoryLimit.humanBytes(100));
    }
}
