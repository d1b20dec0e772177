package io.ringwire.rdma.host;

import org.junit.jupiter.api.Test;

import java.util.BitSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuListTest
{
    @Test
    void kernelListsAreParsedAndFormattedBackAlike()
    {
        assertEquals("0-3,8,10-11", CpuList.format(CpuList.parse("0-3,8,10-11\n")));
        assertEquals("0-1,4-5,8-9,12-13", CpuList.format(CpuList.parse("0-15:2/4")));
        assertEquals(6, CpuList.parse("0-3,6,8").cardinality());
        assertEquals("none", CpuList.format(CpuList.parse("\n")));
    }

    @Test
    void somethingThatIsNotACpuListIsRefusedByTheStrictParser()
    {
        assertThrows(IllegalArgumentException.class, () -> CpuList.parse("0-x"));
        assertThrows(IllegalArgumentException.class, () -> CpuList.parse("3-1"));
        assertThrows(IllegalArgumentException.class, () -> CpuList.parse("domain,2-3"));
    }

    @Test
    void kernelParameterFlagsAreSkippedByTheLenientParser()
    {
        assertEquals("2-3", CpuList.format(CpuList.parseLenient("domain,managed_irq,2-3")));
        assertEquals("none", CpuList.format(CpuList.parseLenient("")));
        assertEquals("5", CpuList.format(CpuList.parseLenient("nohz,5,x-y")));
    }

    @Test
    void theRunningMachineListsItsOnlineCpusConsistently()
    {
        assertTrue(OnlineCpus.count() >= 1);
        assertEquals(OnlineCpus.count(), OnlineCpus.asList().size());
        final BitSet listed = CpuList.parse(OnlineCpus.list());
        assertEquals(OnlineCpus.count(), listed.cardinality());
        assertTrue(OnlineCpus.isOnline(OnlineCpus.asList().get(0)));
        assertFalse(OnlineCpus.isOnline(-1));
    }
}
