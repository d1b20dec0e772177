package io.ringwire.messaging.status;

import io.ringwire.messaging.ChannelUri;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.rdma.DeviceCounters;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * A publication's counters in the process's {@link CountersFile}, labelled with its stream.
 *
 * <p>Threading: the publication's owning thread writes each counter (release stores); any thread or
 * process reads them.
 */
public final class PublicationCounters implements AutoCloseable
{
    private final CounterSet set;
    /** The publication's device counters, copied into the file by its duty cycle. */
    public final DeviceCounterMirror device;
    /** Messages sent (a fragmented message counts once, with its last fragment). */
    public final AtomicCounter messagesSent;
    /** Payload bytes of the messages sent. */
    public final AtomicCounter bytesSent;
    /** Offers refused with BACK_PRESSURED or NOT_CONNECTED for lack of credit. */
    public final AtomicCounter backPressured;
    /** Heartbeat frames sent on an idle stream. */
    public final AtomicCounter heartbeatsSent;
    /** Subscribers connected (reconnections included). */
    public final AtomicCounter connects;
    /** Subscribers disconnected, for whatever reason. */
    public final AtomicCounter disconnects;
    /** Failed completions, each of which disconnects its subscriber. */
    public final AtomicCounter errors;
    /** Subscribers disconnected for being silent past the liveness timeout. */
    public final AtomicCounter livenessTimeouts;
    /** Frames a queue pair refused to post, each of which disconnects its subscriber. */
    public final AtomicCounter sendFailures;
    /** Subscribers disconnected for holding the publication back past the channel's slow-timeout. */
    public final AtomicCounter slowSubscribers;
    /**
     * Frames written again into a memory log's new connection: its subscriber's closed image had
     * left them unread.
     */
    public final AtomicCounter framesResent;
    /**
     * Reconnections to a memory log that could not write again what its closed image had left
     * unread (the stream moved on, the subscriber wants checksums, or a frame taken was not whole).
     */
    public final AtomicCounter resendsDropped;

    private PublicationCounters(final CounterSet set, final DeviceCounters deviceCounters)
    {
        this.set = set;
        messagesSent = set.newCounter("messages sent");
        bytesSent = set.newCounter("bytes sent");
        backPressured = set.newCounter("back pressured");
        heartbeatsSent = set.newCounter("heartbeats sent");
        connects = set.newCounter("connects");
        disconnects = set.newCounter("disconnects");
        errors = set.newCounter("error completions");
        livenessTimeouts = set.newCounter("liveness timeouts");
        sendFailures = set.newCounter("send failures");
        slowSubscribers = set.newCounter("slow subscribers");
        framesResent = set.newCounter("frames resent");
        resendsDropped = set.newCounter("resends dropped");
        device = new DeviceCounterMirror(set, deviceCounters);
    }

    /**
     * Allocates a publication's counters in the context's counters directory. Control path: takes
     * the counters file's lock and allocates.
     *
     * @param context  the publication's context.
     * @param channel  the publication's channel (its provider and endpoints label the counters).
     * @param streamId the stream.
     * @param device   the publication's device counters, published beside its own.
     * @return the counters, to {@link #close()} with the publication.
     */
    public static PublicationCounters create(final MessagingContext context, final ChannelUri channel,
        final int streamId, final DeviceCounters device)
    {
        return CounterSet.build(context, channel, "pub", streamId, set -> new PublicationCounters(set, device));
    }

    /** Frees the counters (control path). */
    @Override
    public void close()
    {
        set.close();
    }
}
