package io.ringwire.exchange.demo;

import io.ringwire.codecs.trading.CancelOrderEncoder;
import io.ringwire.codecs.trading.MassCancelEncoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.ReplaceOrderEncoder;
import io.ringwire.exchange.ExchangeClock;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * What a simulated client writes into a request as it goes, and reads back from one that did not:
 * the real sending time, stamped at each offer (a request held behind a slow gateway is stamped
 * again when it goes, so the wait shows as waiting from its due time, not as the network's), and
 * the client order id a request that never went would have placed, for the flow to forget.
 *
 * <p>Threading: the clients' thread. Allocation-free.
 */
final class RequestStamps
{
    private static final int NEW_ORDER_ID_AT =
        MessageHeaderDecoder.ENCODED_LENGTH + NewOrderEncoder.clientOrderIdEncodingOffset();
    private static final int REPLACE_ID_AT =
        MessageHeaderDecoder.ENCODED_LENGTH + ReplaceOrderEncoder.clientOrderIdEncodingOffset();

    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final NewOrderEncoder newOrder = new NewOrderEncoder();
    private final CancelOrderEncoder cancel = new CancelOrderEncoder();
    private final ReplaceOrderEncoder replace = new ReplaceOrderEncoder();
    private final MassCancelEncoder massCancel = new MassCancelEncoder();

    /**
     * Stamps a request, encoded from offset 0, with its real sending time (the flow's own clock is a
     * replayable fiction).
     *
     * @param request the request.
     * @param sendNs  when it is offered, on the monotonic clock.
     * @return the client order id of a new order (which waits for its acknowledgement), else 0.
     */
    long stamp(final MutableDirectBuffer request, final long sendNs)
    {
        final long sendingTime = ExchangeClock.fromMonotonic(sendNs);
        header.wrap(request, 0);
        final int body = MessageHeaderDecoder.ENCODED_LENGTH;
        switch (header.templateId())
        {
            case NewOrderEncoder.TEMPLATE_ID ->
            {
                newOrder.wrap(request, body).sendingTime(sendingTime);
                return request.getLong(NEW_ORDER_ID_AT, NewOrderEncoder.BYTE_ORDER);
            }
            case CancelOrderEncoder.TEMPLATE_ID -> cancel.wrap(request, body).sendingTime(sendingTime);
            case ReplaceOrderEncoder.TEMPLATE_ID -> replace.wrap(request, body).sendingTime(sendingTime);
            case MassCancelEncoder.TEMPLATE_ID -> massCancel.wrap(request, body).sendingTime(sendingTime);
            default ->
            {
            }
        }
        return 0;
    }

    /**
     * @param request a request, encoded from offset 0, that was dropped unsent.
     * @return the client order id it would have placed on the book (a new order's, or the id a
     *         replace gives its order), which the engine never saw; 0 for any other request.
     */
    long unplacedId(final DirectBuffer request)
    {
        header.wrap(request, 0);
        return switch (header.templateId())
        {
            case NewOrderEncoder.TEMPLATE_ID -> request.getLong(NEW_ORDER_ID_AT, NewOrderEncoder.BYTE_ORDER);
            case ReplaceOrderEncoder.TEMPLATE_ID -> request.getLong(REPLACE_ID_AT, ReplaceOrderEncoder.BYTE_ORDER);
            default -> 0;
        };
    }
}
