package io.ringwire.exchange.demo;

import io.ringwire.codecs.trading.CancelOrderEncoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import io.ringwire.codecs.trading.ReplaceOrderEncoder;
import io.ringwire.exchange.ExchangeClock;
import io.ringwire.exchange.flow.OrderFlow;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A simulated client's requests as they go and as they fail to: stamped with the time they are
 * offered, each time they are, and, dropped unsent, giving the order the flow must forget.
 */
class RequestStampsTest
{
    private final RequestStamps stamps = new RequestStamps();
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[512]);

    @Test
    void aRequestHeldAndOfferedAgainCarriesTheTimeOfItsLastOffer()
    {
        final OrderFlow flow = flow();
        drawUntil(flow, NewOrderEncoder.TEMPLATE_ID);
        final long id = stamps.stamp(buffer, 1_000_000);
        final long later = 51_000_000; // held 50 ms behind a slow gateway, then offered again
        assertEquals(id, stamps.stamp(buffer, later), "a new order's id, each time");
        final NewOrderDecoder order = new NewOrderDecoder().wrapAndApplyHeader(buffer, 0, header);
        assertEquals(ExchangeClock.fromMonotonic(later), order.sendingTime());
        assertEquals(id, order.clientOrderId());
    }

    @Test
    void aNewOrderOrAReplaceDroppedUnsentNamesTheOrderItWouldHavePlacedAndACancelNone()
    {
        final OrderFlow flow = flow();
        drawUntil(flow, NewOrderEncoder.TEMPLATE_ID);
        final long newOrderId = new NewOrderDecoder().wrapAndApplyHeader(buffer, 0, header).clientOrderId();
        assertEquals(newOrderId, stamps.unplacedId(buffer));

        drawUntil(flow, ReplaceOrderEncoder.TEMPLATE_ID);
        final long live = flow.liveOrders();
        final long replaceId = new ReplaceOrderDecoder().wrapAndApplyHeader(buffer, 0, header).clientOrderId();
        assertEquals(replaceId, stamps.unplacedId(buffer));
        flow.ended(stamps.unplacedId(buffer));
        assertEquals(live - 1, flow.liveOrders(), "the flow no longer aims at the id the replace would have given");

        drawUntil(flow, CancelOrderEncoder.TEMPLATE_ID);
        assertEquals(0, stamps.unplacedId(buffer));
    }

    private static OrderFlow flow()
    {
        return new OrderFlow(42, 2, 1001, 2, 10_000, 20, 64);
    }

    private void drawUntil(final OrderFlow flow, final int templateId)
    {
        for (int i = 0; i < 10_000; i++)
        {
            flow.next(buffer, 0);
            if (header.wrap(buffer, 0).templateId() == templateId)
            {
                return;
            }
        }
        throw new AssertionError("the flow drew no request of template " + templateId);
    }
}
