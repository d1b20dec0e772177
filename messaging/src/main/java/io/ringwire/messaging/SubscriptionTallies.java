package io.ringwire.messaging;

import io.ringwire.messaging.status.SubscriptionCounters;

/**
 * What a subscription's images count per frame, in plain fields of its polling thread, copied into
 * the counters file by its duty cycle: a frame costs no store to a shared counters line.
 *
 * <p>Threading: the subscription's polling thread.
 */
final class SubscriptionTallies
{
    long fragments;
    long messages;
    long bytes;
    long heartbeats;

    /**
     * Copies the tallies into the counters file.
     *
     * @param counters the subscription's counters.
     */
    void flush(final SubscriptionCounters counters)
    {
        counters.fragmentsReceived.setRelease(fragments);
        counters.messagesReceived.setRelease(messages);
        counters.bytesReceived.setRelease(bytes);
        counters.heartbeatsReceived.setRelease(heartbeats);
    }
}
