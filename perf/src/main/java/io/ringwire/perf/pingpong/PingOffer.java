package io.ringwire.perf.pingpong;

/**
 * How an {@code EchoPinger} hands its transport a ping when the transport may refuse it for a
 * while (Aeron's back pressure, a subscriber not yet connected): one try, and what a refusal means.
 * Implementations allocate nothing on a try that is taken.
 */
public interface PingOffer
{
    /**
     * Tries once.
     *
     * @param sequence the ping's sequence.
     * @param sendNs   its send timestamp.
     * @return the transport's position when it took the ping, else its negative refusal.
     */
    long offer(long sequence, long sendNs);

    /**
     * @param refusal a negative result of {@link #offer}.
     * @return why no later try can pass, or null when one may.
     */
    String refusedForGood(long refusal);

    /**
     * @param refusal a negative result of {@link #offer} that a later try may pass.
     * @return what did not happen, for the message of a wait that timed out.
     */
    String refusedForNow(long refusal);
}
