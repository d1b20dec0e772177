package io.ringwire.messaging;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * A subscription's counters in the process's {@link CountersFile}, labelled with its stream.
 */
final class SubscriptionCounters implements AutoCloseable
{
    private final CountersFile file;
    final AtomicCounter messagesReceived;
    final AtomicCounter fragmentsReceived;
    final AtomicCounter bytesReceived;
    final AtomicCounter creditUpdates;
    final AtomicCounter heartbeatsReceived;
    final AtomicCounter imagesOpened;
    final AtomicCounter imagesClosed;
    final AtomicCounter imagesRefused;
    final AtomicCounter livenessTimeouts;
    final AtomicCounter protocolErrors;
    final AtomicCounter errors;

    private SubscriptionCounters(final CountersFile file, final String prefix)
    {
        this.file = file;
        messagesReceived = file.newCounter(prefix + "messages received");
        fragmentsReceived = file.newCounter(prefix + "fragments received");
        bytesReceived = file.newCounter(prefix + "bytes received");
        creditUpdates = file.newCounter(prefix + "credit updates sent");
        heartbeatsReceived = file.newCounter(prefix + "heartbeats received");
        imagesOpened = file.newCounter(prefix + "images opened");
        imagesClosed = file.newCounter(prefix + "images closed");
        imagesRefused = file.newCounter(prefix + "publications refused");
        livenessTimeouts = file.newCounter(prefix + "liveness timeouts");
        protocolErrors = file.newCounter(prefix + "protocol errors");
        errors = file.newCounter(prefix + "error completions");
    }

    static SubscriptionCounters create(final MessagingContext context, final ChannelUri channel, final int streamId)
    {
        return new SubscriptionCounters(CountersFile.acquire(context.countersDirectory()),
            "sub stream=" + streamId + " " + channel.provider() + " " + channel.get("endpoint") + ": ");
    }

    @Override
    public void close()
    {
        for (final AtomicCounter counter : new AtomicCounter[]{ messagesReceived, fragmentsReceived, bytesReceived, creditUpdates,
            heartbeatsReceived, imagesOpened, imagesClosed, imagesRefused, livenessTimeouts, protocolErrors, errors })
        {
            file.free(counter);
        }
        CountersFile.release(file);
    }
}
