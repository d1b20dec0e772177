package io.ringwire.rdma.cm;

/**
 * The connection manager's messages, with their type codes on the wire (never renumber).
 */
enum MessageType
{
    /** Active to passive: connection request with the active side's endpoint. */
    REQ(1),
    /** Passive to active: reply with the passive side's endpoint; the passive queue pair is in RTR. */
    REP(2),
    /** Active to passive: ready to use; the active queue pair is in RTS. */
    RTU(3),
    /** Either way, instead of the expected message: the handshake is refused, with a reason. */
    REJ(4),
    /**
     * Passive to active, first on every management connection: a fresh nonce the REQ must echo, so
     * a REQ recorded from another connection is refused before anything is revealed.
     */
    CHALLENGE(5);

    final int code;

    MessageType(final int code)
    {
        this.code = code;
    }

    /**
     * @return the type, or null when the code is unknown.
     */
    static MessageType fromCode(final int code)
    {
        for (final MessageType type : values())
        {
            if (type.code == code)
            {
                return type;
            }
        }
        return null;
    }
}
