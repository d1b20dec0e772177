package io.ringwire.messaging.status;

import io.ringwire.messaging.ChannelUri;
import io.ringwire.messaging.MessagingContext;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * A subscription's counters in the process's {@link CountersFile}, labelled with its stream.
 *
 * <p>Threading: the subscription's polling thread writes each counter (release stores); any thread
 * or process reads them.
 */
public final class SubscriptionCounters implements AutoCloseable
{
    private final CountersFile file;
    /** Whole messages received: unfragmented ones and last fragments. */
    public final AtomicCounter messagesReceived;
    /** Data frames handed to the fragment handler. */
    public final AtomicCounter fragmentsReceived;
    /** Payload bytes of the data frames received. */
    public final AtomicCounter bytesReceived;
    /** Credit writes sent back to publications (heartbeat credits included). */
    public final AtomicCounter creditUpdates;
    /** Heartbeat frames received. */
    public final AtomicCounter heartbeatsReceived;
    /** Images opened: publications accepted. */
    public final AtomicCounter imagesOpened;
    /** Images closed, for whatever reason. */
    public final AtomicCounter imagesClosed;
    /** Publications refused because the subscription was full. */
    public final AtomicCounter imagesRefused;
    /** Images closed for being silent past the liveness timeout. */
    public final AtomicCounter livenessTimeouts;
    /** Images closed for a frame that broke the stream's rules. */
    public final AtomicCounter protocolErrors;
    /** Failed completions, each of which closes its image. */
    public final AtomicCounter errors;

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

    /**
     * Allocates a subscription's counters in the context's counters directory. Control path: takes
     * the counters file's lock and allocates.
     *
     * @param context  the subscription's context.
     * @param channel  the subscription's channel (its provider and endpoint label the counters).
     * @param streamId the stream.
     * @return the counters, to {@link #close()} with the subscription.
     */
    public static SubscriptionCounters create(final MessagingContext context, final ChannelUri channel,
        final int streamId)
    {
        return new SubscriptionCounters(CountersFile.acquire(context.countersDirectory()),
            "sub stream=" + streamId + " " + channel.provider() + " " + channel.get("endpoint") + ": ");
    }

    /** Frees the counters (control path). */
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
