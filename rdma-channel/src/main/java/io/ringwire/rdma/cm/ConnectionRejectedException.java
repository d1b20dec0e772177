package io.ringwire.rdma.cm;

import io.ringwire.rdma.RdmaException;

import java.io.Serial;
import java.net.InetSocketAddress;

/**
 * The peer answered the handshake with REJ: on the active side instead of REP (the listener refused
 * the request), on the passive side instead of RTU (the active side refused the REP). The local
 * queue pair is never moved to RTS when this is thrown.
 *
 * <p>The peer's text is shown as received, bounded in length and with control characters replaced;
 * a REJ cannot be authenticated (a peer with the wrong key must still learn why it was refused),
 * so treat the text as a hint, not as proof.
 */
public final class ConnectionRejectedException extends RdmaException
{
    @Serial
    private static final long serialVersionUID = 1L;

    private final RejectReason reason;
    private final String peerText;
    private final InetSocketAddress peerAddress;

    /**
     * @param peerAddress where the REJ came from.
     * @param step        the step that was answered with REJ, e.g. "REQ".
     * @param reason      the reason the peer gave.
     * @param peerText    the peer's explanation.
     */
    ConnectionRejectedException(final InetSocketAddress peerAddress, final String step, final RejectReason reason,
        final String peerText)
    {
        super(step + " to " + peerAddress + " was rejected: " + reason + " (peer says: '" + peerText + "'); " +
            reason.advice());
        this.reason = reason;
        this.peerText = peerText;
        this.peerAddress = peerAddress;
    }

    /**
     * @return why the peer refused the handshake.
     */
    public RejectReason reason()
    {
        return reason;
    }

    /**
     * @return the peer's explanation, sanitised (see the class comment).
     */
    public String peerText()
    {
        return peerText;
    }

    /**
     * @return the management address of the peer that sent the REJ.
     */
    public InetSocketAddress peerAddress()
    {
        return peerAddress;
    }
}
