package io.ringwire.rdma.cm;

import java.io.Serial;

/**
 * A received frame broke the protocol; the reason is what the REJ sent back will carry. Internal:
 * the listener turns it into a REJ, a counter and a log line; the active side into an
 * {@link io.ringwire.rdma.RdmaException}.
 */
final class ProtocolViolationException extends Exception
{
    @Serial
    private static final long serialVersionUID = 1L;

    private final RejectReason reason;

    ProtocolViolationException(final RejectReason reason, final String message)
    {
        super(message);
        this.reason = reason;
    }

    RejectReason reason()
    {
        return reason;
    }
}
