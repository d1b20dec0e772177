package io.ringwire.exchange.fix;

import org.junit.jupiter.api.Test;
import quickfix.MemoryStore;
import quickfix.MessageStore;
import quickfix.SessionID;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The door's store answers a range from the session's last messages only, in memory and over a
 * store that keeps the messages itself, and in memory holds no more than the window.
 */
class ResendWindowStoreTest
{
    private static final SessionID SESSION = new SessionID("FIX.4.4", "EXCH", "MEMBER");

    @Test
    void aRangeIsAnsweredFromTheLastWindowOfMessagesInMemory() throws IOException
    {
        final MessageStore store = new ResendWindowStore(new MemoryStore(SESSION), false, 16);
        send(store, 100);
        assertEquals(messages(85, 100), get(store, 1, Integer.MAX_VALUE), "everything: the last 16");
        assertEquals(messages(90, 95), get(store, 90, 95), "a range within the window: whole");
        assertEquals(List.of(), get(store, 1, 84), "before the window: nothing");
        assertEquals(messages(85, 88), get(store, 80, 88), "across the window's start: its part");
        assertEquals(List.of(), get(store, 101, 0), "an empty range");
    }

    @Test
    void aRangeOverAStoreThatKeepsTheMessagesIsReadWithinTheWindowOnly() throws IOException
    {
        final MemoryStore keeping = new MemoryStore(SESSION);
        final MessageStore store = new ResendWindowStore(keeping, true, 16);
        send(store, 100);
        final List<String> all = new ArrayList<>();
        keeping.get(1, 100, all);
        assertEquals(100, all.size(), "the inner store keeps every message");
        assertEquals(messages(85, 100), get(store, 1, Integer.MAX_VALUE));
        assertEquals(messages(90, 95), get(store, 90, 95));
    }

    @Test
    void aResetForgetsTheMessagesAndStartsTheNumbersAgain() throws IOException
    {
        final MessageStore store = new ResendWindowStore(new MemoryStore(SESSION), false, 16);
        send(store, 20);
        store.reset();
        assertEquals(1, store.getNextSenderMsgSeqNum());
        assertEquals(List.of(), get(store, 1, 20));
        store.set(1, "after");
        store.incrNextSenderMsgSeqNum();
        assertEquals(List.of("after"), get(store, 1, 20));
    }

    @Test
    void closingTheStoreClosesAnInnerStoreThatHoldsFiles() throws IOException
    {
        final boolean[] closed = { false };
        final class ClosingStore extends MemoryStore implements java.io.Closeable
        {
            ClosingStore() throws IOException
            {
                super(SESSION);
            }

            @Override
            public void close()
            {
                closed[0] = true;
            }
        }
        final MessageStore store = new ResendWindowStore(new ClosingStore(), true, 16);
        assertTrue(store instanceof java.io.Closeable, "QuickFIX/J closes a session's store only if it is Closeable");
        ((java.io.Closeable)store).close();
        assertTrue(closed[0], "the inner store closed");
        new ResendWindowStore(new MemoryStore(SESSION), false, 16).close(); // nothing to close: no failure
    }

    @Test
    void aWindowIsAPowerOfTwo() throws IOException
    {
        final MemoryStore inner = new MemoryStore(SESSION);
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> new ResendWindowStore(inner, false, 12));
        assertTrue(refused.getMessage().contains("power of two"), refused.getMessage());
    }

    private static void send(final MessageStore store, final int count) throws IOException
    {
        for (int sequence = 1; sequence <= count; sequence++)
        {
            assertEquals(sequence, store.getNextSenderMsgSeqNum());
            store.set(sequence, "m" + sequence);
            store.incrNextSenderMsgSeqNum();
        }
    }

    private static List<String> get(final MessageStore store, final int start, final int end) throws IOException
    {
        final List<String> out = new ArrayList<>();
        store.get(start, end, out);
        return out;
    }

    private static List<String> messages(final int first, final int last)
    {
        return IntStream.rangeClosed(first, last).mapToObj(i -> "m" + i).toList();
    }
}
