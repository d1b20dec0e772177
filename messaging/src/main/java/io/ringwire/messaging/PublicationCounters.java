package io.ringwire.messaging;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * A publication's counters in the process's {@link CountersFile}, labelled with its stream.
 */
final class PublicationCounters implements AutoCloseable
{
    private final CountersFile file;
    final AtomicCounter messagesSent;
    final AtomicCounter bytesSent;
    final AtomicCounter backPressured;
    final AtomicCounter heartbeatsSent;
    final AtomicCounter connects;
    final AtomicCounter disconnects;
    final AtomicCounter errors;
    final AtomicCounter livenessTimeouts;
    final AtomicCounter sendFailures;

    private PublicationCounters(final CountersFile file, final String prefix)
    {
        this.file = file;
        messagesSent = file.newCounter(prefix + "messages sent");
        bytesSent = file.newCounter(prefix + "bytes sent");
        backPressured = file.newCounter(prefix + "back pressured");
        heartbeatsSent = file.newCounter(prefix + "heartbeats sent");
        connects = file.newCounter(prefix + "connects");
        disconnects = file.newCounter(prefix + "disconnects");
        errors = file.newCounter(prefix + "error completions");
        livenessTimeouts = file.newCounter(prefix + "liveness timeouts");
        sendFailures = file.newCounter(prefix + "send failures");
    }

    static PublicationCounters create(final MessagingContext context, final ChannelUri channel, final int streamId)
    {
        return new PublicationCounters(CountersFile.acquire(context.countersDirectory()),
            "pub stream=" + streamId + " " + channel.provider() + " " + channel.get("endpoint") + ": ");
    }

    @Override
    public void close()
    {
        for (final AtomicCounter counter : new AtomicCounter[]{
            messagesSent, bytesSent, backPressured, heartbeatsSent, connects, disconnects, errors, livenessTimeouts,
            sendFailures })
        {
            file.free(counter);
        }
        CountersFile.release(file);
    }
}
