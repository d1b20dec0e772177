package io.ringwire.perf.host;

import io.ringwire.perf.cli.UsageException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuPlanTest
{
    @Test
    void pingerAndPongerArePinnedToTheLastTwoDistinctCpus()
    {
        final CpuPlan plan = CpuPlan.decide(List.of(0, 1, 2, 3), false);

        assertEquals(2, plan.pingerCpu());
        assertEquals(3, plan.pongerCpu());
        assertFalse(plan.yieldWhenIdle());
        assertFalse(plan.oversubscribed());
    }

    @Test
    void moreSpinningThreadsThanCpusAreRefusedWithoutTheFlag()
    {
        final UsageException refused = assertThrows(UsageException.class, () -> CpuPlan.decide(List.of(0), false));

        assertTrue(refused.getMessage().contains("2 spinning threads"), refused.getMessage());
        assertTrue(refused.getMessage().contains("1 online CPU"), refused.getMessage());
        assertTrue(refused.getMessage().contains("--allow-oversubscribe"), refused.getMessage());
    }

    @Test
    void oversubscriptionWithTheFlagRunsUnpinnedAndYielding()
    {
        final CpuPlan plan = CpuPlan.decide(List.of(0), true);

        assertEquals(CpuPlan.UNPINNED, plan.pingerCpu());
        assertEquals(CpuPlan.UNPINNED, plan.pongerCpu());
        assertTrue(plan.yieldWhenIdle());
        assertTrue(plan.oversubscribed());
    }
}
