package io.ringwire.exchange.gateway;

import io.ringwire.rdma.cm.Identity;

/**
 * One configured session: who may log on and what it may trade.
 *
 * @param sessionId the id a client sends in its Logon.
 * @param token     the credentials token issued to the client; compared byte for byte (UTF-8).
 * @param account   the one account the session trades; a request for another is rejected.
 * @param identity  the member identity whose key a client must have proved at its connection to
 *                  log on as this session: the gateway binds a session to the identity the
 *                  transport authenticated, never to a number in a frame.
 */
public record SessionConfig(int sessionId, String token, long account, String identity)
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
        try
        {
            Identity.checkName(identity);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("session " + sessionId + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * A session of the identity {@link #memberIdentity(int) member-&lt;sessionId&gt;}.
     *
     * @param sessionId the id a client sends in its Logon.
     * @param token     its token.
     * @param account   its account.
     */
    public SessionConfig(final int sessionId, final String token, final long account)
    {
        this(sessionId, token, account, memberIdentity(sessionId));
    }

    /**
     * @param sessionId a session id.
     * @return {@code member-<sessionId>}: the identity name the demo gives a session's member.
     */
    public static String memberIdentity(final int sessionId)
    {
        return "member-" + sessionId;
    }
}
