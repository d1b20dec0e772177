package io.ringwire.exchange.marketdata;

/**
 * What a {@link SnapshotEncoder} takes a BookSnapshot of, besides the orders (a
 * {@link io.ringwire.exchange.book.BookWalk} gives those): which books are anyone's truth, and the
 * sequences a snapshot carries. The market-data service's replica is one ({@link MarketDataBooks}):
 * it answers its subscribers. The engine's books are another: the engine sends them into the feed
 * when a market-data service connects, so the service's replica recovers whatever it missed.
 *
 * <p>Books are named by slot: the instrument's index, its id less one.
 */
public interface SnapshotSource
{
    /** @return books, slots 0 to this less one. */
    int books();

    /** @return whether the slot's book may be sent: a stale replica book is no one's truth. */
    boolean isLive(int slot);

    /** @return the instrument sequence of the last change the slot's book holds, 0 when none. */
    long sequence(int slot);

    /** @return the stream sequence of the last change the books hold. */
    long streamSequence();

    /** @return the life of the engine the books are of (its sequences count in it); 0 when none is known. */
    long engineLife();
}
