package io.ringwire.exchange.gateway;

/**
 * One configured session: who may log on and what it may trade.
 *
 * @param sessionId the id a client sends in its Logon.
 * @param token     the credentials token issued to the client; compared byte for byte (UTF-8).
 * @param account   the one account the session trades; a request for another is rejected.
 */
public record SessionConfig(int sessionId, String token, long account)
{
    /**
     * Validates the values.
     */
    public SessionConfig
    {
        if (null == token || token.isEmpty())
        {
            throw new IllegalArgumentException("session " + sessionId + ": the token must not be empty");
        }
    }
}
