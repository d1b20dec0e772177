package io.ringwire.perf.exchange;

import io.ringwire.exchange.fix.FixClients;
import io.ringwire.exchange.fix.FixDoor;
import org.HdrHistogram.Histogram;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The FIX door's side of a {@code perf exchange --door fix} run, measured over the same seconds as
 * the SBE clients beside it: what the QuickFIX/J members sent and had acknowledged, their
 * order-to-ack from the moment before each send, and where the door's part of it goes
 * ({@link FixDoor#STAGES}: the wire, QuickFIX/J's parse and session, the mapping, the queues to and
 * from the gateway's thread, the reply's mapping and send). The gateway, engine and way back are the
 * SBE hops beside it.
 *
 * @param members    FIX members.
 * @param offered    requests a second offered over them.
 * @param sent       requests sent in the measured seconds.
 * @param newOrders  new orders among them.
 * @param acks       new orders acknowledged.
 * @param rejects    of those, rejected.
 * @param orderToAck order to acknowledgement from the send, ns.
 * @param stages     the door's stages, ns.
 */
public record FixDoorFigures(int members, long offered, long sent, long newOrders, long acks, long rejects,
    Histogram orderToAck, Histogram[] stages)
{
    /** Where a measurement starts: the members' counters and histogram then, and the door's stages reset. */
    record Start(AtomicLongArray counters, Histogram orderToAck)
    {
        static Start of(final FixClients clients, final FixDoor door)
        {
            door.stages(); // begins the door's interval
            final AtomicLongArray counters = new AtomicLongArray(clients.counters().length());
            for (int i = 0; i < counters.length(); i++)
            {
                counters.set(i, clients.counters().get(i));
            }
            return new Start(counters, clients.orderToAck());
        }
    }

    /**
     * @return the figures from {@code start} to now.
     */
    static FixDoorFigures since(final Start start, final FixClients clients, final FixDoor door, final int members,
        final long offered)
    {
        final Histogram[] stages = door.stages();
        final Histogram orderToAck = clients.orderToAck();
        orderToAck.subtract(start.orderToAck());
        final AtomicLongArray now = clients.counters();
        return new FixDoorFigures(members, offered, delta(now, start, FixClients.SENT),
            delta(now, start, FixClients.NEW_ORDERS), delta(now, start, FixClients.ACKS),
            delta(now, start, FixClients.REJECTS), orderToAck, stages);
    }

    private static long delta(final AtomicLongArray now, final Start start, final int index)
    {
        return now.get(index) - start.counters().get(index);
    }

    /** @return the table's lines for the door. */
    String describe()
    {
        final StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "  FIX door: %d member(s), %,d " +
            "requests/s offered, %,d sent; %,d new orders, %,d acknowledged (%,d rejected)%n", members, offered, sent,
            newOrders, acks, rejects));
        row(text, "FIX order to ack (from send)", orderToAck);
        for (int i = 0; i < stages.length; i++)
        {
            row(text, "  " + FixDoor.STAGES[i], stages[i]);
        }
        return text.toString();
    }

    private static void row(final StringBuilder text, final String name, final Histogram h)
    {
        text.append(String.format(Locale.ROOT, "    %-40s %9d %9s %9s %9s %9s %9s%n", name, h.getTotalCount(),
            ExchangeBenchmark.cell(h, 50), ExchangeBenchmark.cell(h, 90), ExchangeBenchmark.cell(h, 99),
            ExchangeBenchmark.cell(h, 99.9), ExchangeBenchmark.cell(h, 100)));
    }

    /** @return the door's JSON object. */
    String json()
    {
        final StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "{\"members\":%d," +
            "\"offered_per_second\":%d,\"sent\":%d,\"new_orders\":%d,\"acks\":%d,\"rejected\":%d,\"order_to_ack\":%s," +
            "\"stages\":[", members, offered, sent, newOrders, acks, rejects, percentiles(orderToAck)));
        for (int i = 0; i < stages.length; i++)
        {
            text.append(i == 0 ? "" : ",").append("{\"stage\":\"").append(FixDoor.STAGES[i]).append("\",\"ns\":")
                .append(percentiles(stages[i])).append('}');
        }
        return text.append("]}").toString();
    }

    private static String percentiles(final Histogram h)
    {
        return String.format(Locale.ROOT, "{\"count\":%d,\"p50\":%s,\"p90\":%s,\"p99\":%s,\"p99_9\":%s,\"max\":%s}",
            h.getTotalCount(), ExchangeBenchmark.jsonValue(h, 50), ExchangeBenchmark.jsonValue(h, 90),
            ExchangeBenchmark.jsonValue(h, 99), ExchangeBenchmark.jsonValue(h, 99.9), ExchangeBenchmark.jsonValue(h, 100));
    }
}
