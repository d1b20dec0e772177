package io.ringwire.exchange.marketdata;

import io.ringwire.codecs.MessageValidator;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.SnapshotRequestDecoder;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.util.concurrent.TimeUnit;

import static io.ringwire.exchange.marketdata.MarketDataBooks.NONE;

/**
 * When the market-data service answers SnapshotRequests. A snapshot goes to every subscriber on
 * the shared stream, so one answer serves every request for that book: a request only marks its
 * book (every book, for instrument 0) as wanted, and the service sends each wanted book once. A
 * book is sent at most once per {@link #MIN_INTERVAL_NS}; a request that comes sooner waits for
 * that interval to end. So requests, however many and from whomever, cost the stream at most one
 * snapshot of each book per interval, and a subscriber cannot make the service repeat the whole
 * market to everyone at the rate it can send requests. A book wanted while the replica's own copy
 * is stale (the service missed part of the feed, and the engine's snapshot has not come yet) stays
 * wanted, and goes once the replica has it again.
 *
 * <p>Threading: the service's thread. Allocation-free.
 */
public final class SnapshotSchedule
{
    /** The shortest time between two snapshots of one book. */
    public static final long MIN_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Books sent in one call at most, so that the feed goes on between them. */
    public static final int BOOKS_PER_CALL = 8;

    private final MarketDataBooks replica;
    private final SnapshotEncoder encoder;
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final SnapshotRequestDecoder request = new SnapshotRequestDecoder();
    private final boolean[] wanted;
    private final boolean[] sentOnce;
    private final long[] sentNs;
    private int wantedCount;
    private int cursor;
    private long nextCheckNs;
    private long requests;
    private long badRequests;
    private long booksSent;

    /**
     * @param replica the books snapshots are taken of.
     * @param encoder encodes them.
     */
    public SnapshotSchedule(final MarketDataBooks replica, final SnapshotEncoder encoder)
    {
        this.replica = replica;
        this.encoder = encoder;
        this.wanted = new boolean[replica.instruments()];
        this.sentOnce = new boolean[replica.instruments()];
        this.sentNs = new long[replica.instruments()];
    }

    /**
     * Takes a SnapshotRequest: marks the book it names, or every book for instrument 0. A request
     * for an instrument the exchange does not list is taken and answers nothing.
     *
     * @return false when the message is not a well-formed SnapshotRequest (counted).
     */
    public boolean request(final DirectBuffer message, final int offset, final int length)
    {
        if (MessageValidator.validate(message, offset, length) < 0)
        {
            badRequests++;
            return false;
        }
        header.wrap(message, offset);
        if (header.templateId() != SnapshotRequestDecoder.TEMPLATE_ID)
        {
            badRequests++;
            return false;
        }
        request.wrap(message, offset + MessageHeaderDecoder.ENCODED_LENGTH, header.blockLength(), header.version());
        requests++;
        final int instrumentId = request.instrumentId();
        if (instrumentId == 0)
        {
            // A flood of these finds every book wanted already: one comparison each, not a pass.
            for (int slot = 0; slot < wanted.length && wantedCount < wanted.length; slot++)
            {
                want(slot);
            }
        }
        else
        {
            final int slot = replica.slotOf(instrumentId);
            if (slot != NONE)
            {
                want(slot);
            }
        }
        return true;
    }

    private void want(final int slot)
    {
        if (!wanted[slot])
        {
            wanted[slot] = true;
            wantedCount++;
            nextCheckNs = Long.MIN_VALUE;
        }
    }

    /** @return whether some book is wanted: {@link #sendDue} has something to do, now or later. */
    public boolean hasWanted()
    {
        return wantedCount > 0;
    }

    /**
     * Sends the wanted books whose last snapshot is at least {@link #MIN_INTERVAL_NS} old, up to
     * {@link #BOOKS_PER_CALL} of them, in slot order from where the last call stopped.
     *
     * @param nowNs  the time.
     * @param buffer where each part is encoded, from {@code offset}.
     * @param offset where a part starts.
     * @param sink   takes each part.
     * @return parts sent.
     */
    public int sendDue(final long nowNs, final MutableDirectBuffer buffer, final int offset,
        final SnapshotEncoder.PartSink sink)
    {
        if (wantedCount == 0 || (nextCheckNs != Long.MIN_VALUE && nowNs - nextCheckNs < 0))
        {
            return 0;
        }
        int parts = 0;
        int books = 0;
        boolean waiting = false;
        long earliestDueNs = 0;
        for (int looked = 0; looked < wanted.length && books < BOOKS_PER_CALL && wantedCount > 0; looked++)
        {
            final int slot = cursor;
            cursor = cursor + 1 == wanted.length ? 0 : cursor + 1;
            if (!wanted[slot])
            {
                continue;
            }
            final boolean replicaStale = replica.sequencer.isStale(slot);
            if (replicaStale || (sentOnce[slot] && nowNs - sentNs[slot] < MIN_INTERVAL_NS))
            {
                // A stale replica book is no one's truth: it stays wanted until the engine's
                // snapshot has made it live, looked at again every interval.
                final long dueNs = (replicaStale ? nowNs : sentNs[slot]) + MIN_INTERVAL_NS;
                earliestDueNs = !waiting || dueNs - earliestDueNs < 0 ? dueNs : earliestDueNs;
                waiting = true;
                continue;
            }
            wanted[slot] = false;
            wantedCount--;
            final int sent = encoder.encodeSlot(slot, buffer, offset, sink);
            if (sent > 0)
            {
                parts += sent;
                books++;
                booksSent++;
                sentOnce[slot] = true;
                sentNs[slot] = nowNs;
            }
        }
        // Stopped at the per-call bound: look again next call. Otherwise every book still wanted
        // waits out its interval, and nothing is due before the earliest of them.
        nextCheckNs = books == BOOKS_PER_CALL || !waiting ? Long.MIN_VALUE : earliestDueNs;
        return parts;
    }

    /** @return well-formed requests taken. */
    public long requests()
    {
        return requests;
    }

    /** @return messages on the request stream that were not well-formed SnapshotRequests. */
    public long badRequests()
    {
        return badRequests;
    }

    /** @return book snapshots sent (a snapshot of many parts counts once). */
    public long booksSent()
    {
        return booksSent;
    }
}
