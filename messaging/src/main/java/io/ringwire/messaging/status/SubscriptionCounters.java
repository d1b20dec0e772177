package io.ringwire.messaging.status;

import io.ringwire.messaging.ChannelUri;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.rdma.DeviceCounters;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * A subscription's counters in the process's {@link CountersFile}, labelled with its stream.
 *
 * <p>Threading: the subscription's polling thread writes each counter (release stores); any thread
 * or process reads them.
 */
public final class SubscriptionCounters implements AutoCloseable
{
    private final CounterSet set;
    /** The subscription's device counters, copied into the file by its duty cycle. */
    public final DeviceCounterMirror device;
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
    /**
     * Publications refused for what they asked or who they are: a ring above the subscription's
     * largest, a session id already in use here, or one identity past its number of publications.
     */
    public final AtomicCounter setupsRefused;
    /** Images the application closed ({@code Subscription.closeImage}): evicted peers. */
    public final AtomicCounter imagesEvicted;
    /** Publications refused at the handshake for an identity this subscription does not accept. */
    public final AtomicCounter identitiesRefused;
    /** Images closed for being silent past the liveness timeout. */
    public final AtomicCounter livenessTimeouts;
    /** Images closed for a frame that broke the stream's rules. */
    public final AtomicCounter protocolErrors;
    /** Failed completions, each of which closes its image. */
    public final AtomicCounter errors;
    /** Data frames whose CRC32C did not hold, or that lacked one this subscription asked for; each closes its image. */
    public final AtomicCounter checksumErrors;

    private SubscriptionCounters(final CounterSet set, final DeviceCounters deviceCounters)
    {
        this.set = set;
        messagesReceived = set.newCounter("messages received");
        fragmentsReceived = set.newCounter("fragments received");
        bytesReceived = set.newCounter("bytes received");
        creditUpdates = set.newCounter("credit updates sent");
        heartbeatsReceived = set.newCounter("heartbeats received");
        imagesOpened = set.newCounter("images opened");
        imagesClosed = set.newCounter("images closed");
        imagesRefused = set.newCounter("publications refused");
        setupsRefused = set.newCounter("setups refused");
        imagesEvicted = set.newCounter("images evicted");
        identitiesRefused = set.newCounter("identities refused");
        livenessTimeouts = set.newCounter("liveness timeouts");
        protocolErrors = set.newCounter("protocol errors");
        errors = set.newCounter("error completions");
        checksumErrors = set.newCounter("checksum errors");
        device = new DeviceCounterMirror(set, deviceCounters);
    }

    /**
     * Allocates a subscription's counters in the context's counters directory. Control path: takes
     * the counters file's lock and allocates.
     *
     * @param context  the subscription's context.
     * @param channel  the subscription's channel (its provider and endpoint label the counters).
     * @param streamId the stream.
     * @param device   the subscription's device counters, published beside its own.
     * @return the counters, to {@link #close()} with the subscription.
     */
    public static SubscriptionCounters create(final MessagingContext context, final ChannelUri channel,
        final int streamId, final DeviceCounters device)
    {
        return CounterSet.build(context, channel, "sub", streamId, set -> new SubscriptionCounters(set, device));
    }

    /** Frees the counters (control path). */
    @Override
    public void close()
    {
        set.close();
    }
}
