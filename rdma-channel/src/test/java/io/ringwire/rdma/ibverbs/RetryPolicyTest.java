package io.ringwire.rdma.ibverbs;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class RetryPolicyTest
{
    private static final long MS = 1_000_000L;

    @Test
    void aFiniteRetryCountKeepsTheAckTimeout()
    {
        assertEquals(new RetryPolicy(9, 3), RetryPolicy.of(2 * MS, 3, 2000 * MS));
        assertEquals(new RetryPolicy(9, 6), RetryPolicy.of(2 * MS, 6, 2000 * MS));
        assertEquals(new RetryPolicy(2, 0), RetryPolicy.of(10_000, 0, 2000 * MS));
    }

    @Test
    void retryUntilThePeerTimeoutSpreadsSixRetriesOverIt()
    {
        final RetryPolicy defaults = RetryPolicy.of(2 * MS, 7, 2000 * MS);
        assertEquals(new RetryPolicy(16, 6), defaults, "7 x 268 ms = 1.88 s <= 2 s");
        assertEquals(new RetryPolicy(14, 6), RetryPolicy.of(2 * MS, 7, 500 * MS), "7 x 67 ms = 470 ms <= 500 ms");
        assertEquals(new RetryPolicy(9, 6), RetryPolicy.of(2 * MS, 7, 5 * MS), "never shorter than the ACK timeout");
    }
}
