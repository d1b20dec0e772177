package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.RdmaConfig;

/**
 * How the NIC retransmits: the IB local ACK timeout exponent and retry count of the RTS transition,
 * from {@link RdmaConfig}. A NIC retransmits after a fixed timeout (4.096 us * 2^t; no doubling)
 * and gives up with RETRY_EXCEEDED after {@code retry_cnt} retries, so the peer of a dead or
 * unreachable queue pair is declared gone after about {@code (retry_cnt + 1)} timeouts.
 *
 * <ul>
 *   <li>Retry count 0 to 6: passed as it is, with the timeout from
 *       {@link RdmaConfig#ACK_TIMEOUT_PROP} (rounded up to the next exponent).</li>
 *   <li>Retry count 7 means, in this API, "retry until the peer timeout". The NIC cannot do that, and
 *       7 is not even portable (the IBA says seven retries; kernel rxe retries forever, so a vanished
 *       peer would never be reported). It becomes retry_cnt 6 with the longest timeout for which seven
 *       attempts fit in {@link RdmaConfig#PEER_TIMEOUT_PROP} (never shorter than the ACK timeout):
 *       with the defaults (2 ms, 2000 ms), 268 ms, so a dead peer is reported after about 1.9 s.
 *       The price: on a lossy network a lost packet waits that long for its retransmission (RoCE
 *       networks are normally lossless; set a retry count below 7 for fast retransmission).</li>
 * </ul>
 *
 * @param timeoutExponent the {@code timeout} attribute, 1 to 31.
 * @param retryCount      the {@code retry_cnt} attribute, 0 to 6.
 */
record RetryPolicy(int timeoutExponent, int retryCount)
{
    /** The retry count that means "until the peer timeout" in {@link RdmaConfig}. */
    static final int UNTIL_PEER_TIMEOUT = 7;
    /** The largest retry count every NIC treats as a count. */
    static final int MAX_FINITE_RETRIES = 6;

    /**
     * @param config concluded configuration.
     * @return the policy.
     */
    static RetryPolicy of(final RdmaConfig config)
    {
        return of(config.ackTimeoutNs(), config.retryCount(), config.peerTimeoutNs());
    }

    static RetryPolicy of(final long ackTimeoutNs, final int retryCount, final long peerTimeoutNs)
    {
        final int ackExponent = VerbsValues.ackTimeoutExponent(ackTimeoutNs);
        if (retryCount < UNTIL_PEER_TIMEOUT)
        {
            return new RetryPolicy(ackExponent, retryCount);
        }
        final int attempts = MAX_FINITE_RETRIES + 1;
        int peerExponent = 1;
        while (peerExponent < VerbsValues.MAX_TIMEOUT_EXPONENT &&
            attempts * VerbsValues.timeoutNs(peerExponent + 1) <= peerTimeoutNs)
        {
            peerExponent++;
        }
        return new RetryPolicy(Math.max(ackExponent, peerExponent), MAX_FINITE_RETRIES);
    }
}
