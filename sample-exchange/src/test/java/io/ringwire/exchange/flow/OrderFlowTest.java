package io.ringwire.exchange.flow;

import io.ringwire.codecs.trading.CancelOrderDecoder;
import io.ringwire.codecs.trading.MassCancelDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import io.ringwire.codecs.trading.TimeInForce;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The flow's live orders follow what a client tells it: an order reported ended is never the
 * target of a later cancel or replace, and without such reports the flow is the seeded stream it
 * always was.
 */
class OrderFlowTest
{
    private static final int REQUESTS = 200_000;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(512));
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final NewOrderDecoder newOrder = new NewOrderDecoder();
    private final CancelOrderDecoder cancel = new CancelOrderDecoder();
    private final ReplaceOrderDecoder replace = new ReplaceOrderDecoder();
    private final MassCancelDecoder massCancel = new MassCancelDecoder();

    @Test
    void anOrderReportedEndedOrMassCanceledIsNeverTheTargetOfALaterCancelOrReplace()
    {
        final OrderFlow flow = new OrderFlow(26, 4, 1, 3, 10_000, 20, 256);
        final Set<Long> ended = new HashSet<>();
        final Set<Long> live = new HashSet<>();
        final Map<Long, long[]> accountAndInstrument = new HashMap<>();
        int aimed = 0;
        int massCancels = 0;
        for (int i = 0; i < REQUESTS; i++)
        {
            flow.next(buffer, 0);
            header.wrap(buffer, 0);
            final int body = MessageHeaderDecoder.ENCODED_LENGTH;
            switch (header.templateId())
            {
                case NewOrderDecoder.TEMPLATE_ID ->
                {
                    newOrder.wrap(buffer, body, header.blockLength(), header.version());
                    final long id = newOrder.clientOrderId();
                    if (newOrder.timeInForce() != TimeInForce.IOC)
                    {
                        live.add(id);
                        accountAndInstrument.put(id, new long[]{ newOrder.account(), newOrder.instrumentId() });
                        // Every third resting order is reported filled at once, as a fast market would.
                        if (id % 3 == 0)
                        {
                            flow.ended(id);
                            ended.add(id);
                            live.remove(id);
                        }
                    }
                }
                case CancelOrderDecoder.TEMPLATE_ID ->
                {
                    cancel.wrap(buffer, body, header.blockLength(), header.version());
                    final long target = cancel.origClientOrderId();
                    assertFalse(ended.contains(target), "a cancel of ended order " + target);
                    assertTrue(live.remove(target), "a cancel of an order the flow made: " + target);
                    ended.add(target);
                    aimed++;
                }
                case ReplaceOrderDecoder.TEMPLATE_ID ->
                {
                    replace.wrap(buffer, body, header.blockLength(), header.version());
                    final long target = replace.origClientOrderId();
                    assertFalse(ended.contains(target), "a replace of ended order " + target);
                    assertTrue(live.remove(target), "a replace of an order the flow made: " + target);
                    ended.add(target);
                    live.add(replace.clientOrderId());
                    accountAndInstrument.put(replace.clientOrderId(), accountAndInstrument.get(target));
                    // Every fifth replace is rejected: the order's new id ends with it.
                    if (replace.clientOrderId() % 5 == 0)
                    {
                        flow.ended(replace.clientOrderId());
                        ended.add(replace.clientOrderId());
                        live.remove(replace.clientOrderId());
                    }
                    aimed++;
                }
                case MassCancelDecoder.TEMPLATE_ID ->
                {
                    massCancel.wrap(buffer, body, header.blockLength(), header.version());
                    final long account = massCancel.account();
                    final int instrument = massCancel.instrumentId();
                    for (final Long id : Set.copyOf(live))
                    {
                        final long[] of = accountAndInstrument.get(id);
                        if (of[0] == account && (instrument == 0 || of[1] == instrument))
                        {
                            live.remove(id);
                            ended.add(id);
                        }
                    }
                    massCancels++;
                }
                default ->
                {
                }
            }
        }
        assertTrue(aimed > REQUESTS / 4, "cancels and replaces were made: " + aimed);
        assertTrue(massCancels > 0, "mass cancels were made");
        assertTrue(flow.liveOrders() <= 256);
    }

    @Test
    void withoutReportsTheSameSeedGivesTheSameBytes()
    {
        final OrderFlow first = new OrderFlow(7, 3, 1, 2, 10_000, 20, 64);
        final OrderFlow second = new OrderFlow(7, 3, 1, 2, 10_000, 20, 64);
        final UnsafeBuffer other = new UnsafeBuffer(ByteBuffer.allocateDirect(512));
        for (int i = 0; i < 10_000; i++)
        {
            final int length = first.next(buffer, 0);
            assertEquals(length, second.next(other, 0));
            for (int b = 0; b < length; b++)
            {
                assertEquals(buffer.getByte(b), other.getByte(b), "request " + i + ", byte " + b);
            }
        }
    }
}
