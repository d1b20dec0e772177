package io.ringwire.perf.baseline.aeron;

import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.ringwire.perf.host.SpinningTask;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.RttMessage;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;


/**
 * The ponger of the {@code aeron-ipc} baseline: busy-polls its IPC subscription and offers every
 * ping back unchanged on its own exclusive publication. The handler copies the ping out of the log
 * buffer and the loop offers it after {@code poll} returns, as an Aeron application that answers
 * requests does. Ends after echoing the pinger's {@link RttMessage#STOP_SEQUENCE}.
 *
 * <p>Threading: the ponger thread only.
 */
public final class AeronIpcPonger extends SpinningTask implements FragmentHandler
{
    private final ExclusivePublication publication;
    private final AeronEnd end;
    private final int messageLength;
    private final UnsafeBuffer echo;

    // Ponger thread only (the handler runs inside poll).
    private long received;
    private long echoed;
    private int pendingLength = -1;
    private boolean stopReceived;

    /**
     * @param side          the ponger's publication and subscription, connected.
     * @param messageLength bytes per message.
     * @param plan          where the thread runs and how it idles.
     */
    public AeronIpcPonger(final AeronIpcSide side, final int messageLength, final ThreadPlan plan)
    {
        super("ponger", plan);
        this.publication = side.publication;
        this.end = new AeronEnd(side, this);
        this.messageLength = messageLength;
        this.echo = AeronIpcSide.messageBuffer(messageLength);
    }

    @Override
    protected String runLoop()
    {
        while (true)
        {
            if (end.poll() == 0)
            {
                if (idleTooLong(received, "ping"))
                {
                    return idleFailure();
                }
                continue;
            }
            if (pendingLength < 0)
            {
                continue; // a fragment of a longer ping: the rest follows
            }
            if (pendingLength != messageLength)
            {
                return "a ping of " + pendingLength + " bytes after " + echoed + " echoes, expected " + messageLength;
            }
            long result;
            while ((result = publication.offer(echo, 0, pendingLength)) < 0)
            {
                if (AeronEnd.refusedForGood(result))
                {
                    return "echo of ping " + received + " failed: " + Publication.errorString(result);
                }
                if (idleTooLong(received, "ping"))
                {
                    return "the echo publication refused ping " + received + " (" + Publication.errorString(result) +
                        "): " + idleFailure();
                }
            }
            pendingLength = -1;
            echoed++;
            if (stopReceived)
            {
                return null;
            }
        }
    }

    @Override
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        received++;
        pendingLength = length;
        if (length <= echo.capacity())
        {
            echo.putBytes(0, buffer, offset, length);
            stopReceived = echo.getLong(RttMessage.SEQUENCE_OFFSET) == RttMessage.STOP_SEQUENCE;
        }
    }
}
