package io.ringwire.rdma.cm;

/**
 * Why a handshake was refused, as carried in a REJ message (the code is on the wire: never renumber
 * a constant). Each reason says what the user should look at.
 */
public enum RejectReason
{
    /** A message's HMAC did not verify, or it did not answer the message it claimed to answer. */
    BAD_AUTHENTICATION(1, "the signature did not verify under the key this side holds for the identity it " +
        "names: check that the peer's identity file and this side's public key of it (or the shared secret, " +
        ConnectionManagerConfig.SECRET_PROP + ") belong together"),
    /** The message's protocol version is not the one this side speaks. */
    UNSUPPORTED_VERSION(2, "configure the same protocol version (" + ConnectionManagerConfig.PROTOCOL_VERSION_PROP +
        ") on both sides, or upgrade the older one"),
    /** The bytes were not a valid frame: bad magic, unknown type, bad length, truncated, bad field. */
    MALFORMED(3, "the peer does not speak the RingWire connection-manager protocol, or the stream was " +
        "corrupted; check that the address is a RingWire connection listener"),
    /** The passive application refused the request ({@link PendingConnection#reject(String)}). */
    REJECTED_BY_APPLICATION(4, "the remote application refused the request; see its reason"),
    /** A handshake step took longer than the peer's step timeout. */
    TIMEOUT(5, "a handshake step took longer than the step timeout (" + ConnectionManagerConfig.TIMEOUT_PROP +
        "); check the network and that the passive application calls accept and complete promptly"),
    /** The peer could not move its queue pair to the connected state with the endpoint it was given. */
    QUEUE_PAIR_FAILED(6, "the peer could not connect its queue pair to the endpoint it was given; see its " +
        "reason and its logs"),
    /**
     * The REQ does not answer this connection's challenge: it was recorded from another connection and
     * replayed, it was made for another listener and relayed, or the active side speaks a protocol
     * without challenges.
     */
    STALE_REQUEST(7, "a REQ must answer the challenge of its own management connection, made for its own " +
        "listener; a replayed or relayed request is refused before the listener reveals anything"),
    /**
     * The peer signs as an identity this side does not accept: not among its trusted keys, or not
     * among those the endpoint admits.
     */
    UNKNOWN_IDENTITY(8, "this endpoint does not accept that identity: give the peer a key the endpoint trusts, or " +
        "add the peer's public key to the endpoint's trusted keys (" + ConnectionManagerConfig.TRUST_PROP + ")");

    private final int code;
    private final String advice;

    RejectReason(final int code, final String advice)
    {
        this.code = code;
        this.advice = advice;
    }

    /**
     * @return the code carried on the wire (16 bits).
     */
    public int code()
    {
        return code;
    }

    /**
     * @return what to check or change when a handshake fails for this reason.
     */
    public String advice()
    {
        return advice;
    }

    /**
     * @param code a code read from the wire.
     * @return the reason, or null when the code is unknown (e.g. from a newer peer).
     */
    public static RejectReason fromCode(final int code)
    {
        for (final RejectReason reason : values())
        {
            if (reason.code == code)
            {
                return reason;
            }
        }
        return null;
    }
}
