package io.ringwire.exchange.fix;

import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.filterchain.IoFilterAdapter;
import org.apache.mina.core.session.IoSession;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Closes a connection whose bytes announce a FIX message longer than {@link #MAX_BODY_LENGTH}, before
 * QuickFIX/J's decoder reads them. The decoder takes a message's BodyLength (9) at its word and keeps
 * what it reads until that many bytes have come: a peer that announces two gigabytes and then
 * streams would grow that one connection's buffer without bound, before it has logged on, and the
 * door's memory is every member's. This filter sits ahead of the decoder and reads each byte once,
 * as it arrives, for a BodyLength field: an SOH, "9=", digits. No member sends a message near the
 * bound; a data field (RawData and the like) whose bytes happened to spell such a field would be
 * refused with its connection, which no request the door takes carries.
 *
 * <p>Threading: QuickFIX/J's I/O threads; each connection's scan state is its own attribute, and
 * MINA hands one connection's reads to one thread at a time.
 */
final class BodyLengthBound extends IoFilterAdapter
{
    /** The longest body, in bytes, a message to the door may announce. */
    static final int MAX_BODY_LENGTH = 8192;
    private static final Object SCAN = BodyLengthBound.class.getName() + ".scan";

    private final AtomicLong connectionsClosed = new AtomicLong();

    /** @return connections closed because a message announced a body over {@link #MAX_BODY_LENGTH}. */
    long connectionsClosed()
    {
        return connectionsClosed.get();
    }

    @Override
    public void messageReceived(final NextFilter nextFilter, final IoSession connection, final Object message)
        throws Exception
    {
        if (message instanceof IoBuffer bytes)
        {
            Scan scan = (Scan)connection.getAttribute(SCAN);
            if (null == scan)
            {
                scan = new Scan();
                connection.setAttribute(SCAN, scan);
            }
            if (!scan.accepts(bytes))
            {
                if (!connection.isClosing())
                {
                    connectionsClosed.incrementAndGet();
                    connection.closeNow();
                }
                return;
            }
        }
        nextFilter.messageReceived(connection, message);
    }

    /**
     * One connection's place in its bytes: where it stands in a BodyLength field, across reads.
     * Pure, for the tests.
     */
    static final class Scan
    {
        private static final byte SOH = 1;
        private static final int OUTSIDE = 0;
        private static final int AFTER_SOH = 1;
        private static final int AFTER_TAG = 2;
        private static final int IN_VALUE = 3;

        private int state = OUTSIDE;
        private long value;
        private boolean refused;

        /**
         * Reads the buffer's remaining bytes (its position unchanged).
         *
         * @return false once a BodyLength over the bound has been read, in these bytes or before.
         */
        boolean accepts(final IoBuffer bytes)
        {
            for (int i = bytes.position(), end = bytes.limit(); i < end && !refused; i++)
            {
                next(bytes.get(i));
            }
            return !refused;
        }

        private void next(final byte b)
        {
            if (b == SOH)
            {
                state = AFTER_SOH;
                return;
            }
            switch (state)
            {
                case AFTER_SOH -> state = b == '9' ? AFTER_TAG : OUTSIDE;
                case AFTER_TAG ->
                {
                    state = b == '=' ? IN_VALUE : OUTSIDE;
                    value = 0;
                }
                case IN_VALUE ->
                {
                    if (b >= '0' && b <= '9')
                    {
                        value = value * 10 + (b - '0');
                        refused = value > MAX_BODY_LENGTH;
                    }
                    else
                    {
                        state = OUTSIDE;
                    }
                }
                default ->
                {
                }
            }
        }
    }
}
