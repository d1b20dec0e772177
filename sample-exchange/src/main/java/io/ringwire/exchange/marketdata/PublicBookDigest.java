package io.ringwire.exchange.marketdata;

import io.ringwire.exchange.book.OrderBooks;
import io.ringwire.exchange.book.OrderTerms;
import io.ringwire.exchange.book.ReplicaBooks;
import io.ringwire.exchange.book.RestingOrder;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

import static io.ringwire.exchange.marketdata.MarketDataBooks.NONE;
import static io.ringwire.exchange.book.ReplicaBooks.ASK;
import static io.ringwire.exchange.book.ReplicaBooks.BID;

/**
 * A SHA-256 of the public books: what any market-data client can know, and nothing it cannot
 * (no client order ids, accounts or hidden iceberg quantity). The engine's books and a replica
 * rebuilt from the feed give the same digest exactly when they show the same orders in the same
 * places, so one value compares them whole.
 *
 * <p>What goes in, big-endian: for each instrument with at least one shown order, by instrument
 * id ascending, the id and its count of bids and of asks (ints), then every bid and then every
 * ask, levels best first and orders in time priority within a level, each as order id, price and
 * shown quantity (longs). An order that shows nothing is not public and is left out; so is an
 * empty book, which a replica may not even know.
 *
 * <p>Control path: allocates.
 */
public final class PublicBookDigest
{
    private final MessageDigest sha;
    private final ByteBuffer scratch = ByteBuffer.allocate(24);

    PublicBookDigest()
    {
        try
        {
            sha = MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("this JDK has no SHA-256", ex);
        }
    }

    /**
     * @return the digest of the engine's books, in hex. {@link OrderBooks#resting()} lists every
     *         resting order by instrument, bids then asks, best price first and oldest first,
     *         which is the digest's order already.
     */
    public static String of(final OrderBooks books)
    {
        final List<RestingOrder> resting = books.resting();
        final PublicBookDigest digest = new PublicBookDigest();
        int from = 0;
        while (from < resting.size())
        {
            final int instrument = resting.get(from).instrumentId();
            int to = from;
            int bids = 0;
            int asks = 0;
            while (to < resting.size() && resting.get(to).instrumentId() == instrument)
            {
                final RestingOrder order = resting.get(to);
                if (order.shown() > 0)
                {
                    if (order.side() == OrderTerms.BUY)
                    {
                        bids++;
                    }
                    else
                    {
                        asks++;
                    }
                }
                to++;
            }
            if (bids + asks > 0)
            {
                digest.instrument(instrument, bids, asks);
                for (int i = from; i < to; i++)
                {
                    final RestingOrder order = resting.get(i);
                    if (order.shown() > 0)
                    {
                        digest.order(order.orderId(), order.price(), order.shown());
                    }
                }
            }
            from = to;
        }
        return digest.finish();
    }

    /**
     * @return the digest of a replica's books, in hex: instruments in id order,
     *         each book walked best level first and each level's orders front to back.
     */
    static String of(final ReplicaBooks books)
    {
        final PublicBookDigest digest = new PublicBookDigest();
        for (int slot = 0; slot < books.instruments(); slot++)
        {
            if (books.orderCount(slot) == 0)
            {
                continue;
            }
            digest.instrument(books.instrumentId(slot), books.countOrders(slot, BID), books.countOrders(slot, ASK));
            for (int side = BID; side <= ASK; side++)
            {
                for (int level = books.bestLevel(slot, side); level != NONE; level = books.nextLevel(level))
                {
                    for (int order = books.firstOrder(level); order != NONE; order = books.nextOrder(order))
                    {
                        digest.order(books.orderId(order), books.levelPrice(level), books.shown(order));
                    }
                }
            }
        }
        return digest.finish();
    }

    void instrument(final int instrumentId, final int bids, final int asks)
    {
        scratch.clear();
        scratch.putInt(instrumentId).putInt(bids).putInt(asks);
        sha.update(scratch.array(), 0, 12);
    }

    void order(final long orderId, final long price, final long shown)
    {
        scratch.clear();
        scratch.putLong(orderId).putLong(price).putLong(shown);
        sha.update(scratch.array(), 0, 24);
    }

    String finish()
    {
        return HexFormat.of().formatHex(sha.digest());
    }
}
