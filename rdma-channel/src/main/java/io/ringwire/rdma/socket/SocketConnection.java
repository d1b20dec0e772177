package io.ringwire.rdma.socket;

import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * One queue pair's TCP connection as bytes: the staging buffer its frames are written into and
 * flushed from without blocking, and the buffer the peer's frames are read into and parsed from.
 * Frames are staged before the connection exists (the passive side waits for its peer) and leave
 * once it does. A failed write or read is reported to the queue pair as a lost peer.
 *
 * <p>Threading: the queue pair's owning thread; {@link #open} on the control thread before that
 * thread runs, or on the owning thread. Both buffers are allocated once: nothing here allocates.
 */
final class SocketConnection
{
    private final SocketQueuePair queuePair;
    private final ByteBuffer sendBuffer;
    private final UnsafeBuffer sendView;
    private final ByteBuffer receiveBuffer;
    private final UnsafeBuffer receiveView;
    private SocketChannel channel;
    private boolean open;
    private int sendWritePosition;
    private int sendFlushPosition;
    private int receiveParsePosition;
    private int receiveLimit;

    /**
     * @param queuePair told when the peer is lost.
     * @param capacity  bytes of each buffer: the largest frame.
     */
    SocketConnection(final SocketQueuePair queuePair, final int capacity)
    {
        this.queuePair = queuePair;
        this.sendBuffer = ByteBuffer.allocateDirect(capacity);
        this.sendView = new UnsafeBuffer(sendBuffer);
        this.receiveBuffer = ByteBuffer.allocateDirect(capacity);
        this.receiveView = new UnsafeBuffer(receiveBuffer);
    }

    /**
     * @param connected the connected channel, non-blocking, hello exchanged.
     */
    void open(final SocketChannel connected)
    {
        channel = connected;
        open = true;
    }

    /**
     * @return true from {@link #open} until {@link #close}.
     */
    boolean isOpen()
    {
        return open;
    }

    // ---------------------------------------------------------------- sending

    /**
     * Makes room for a frame at the end of the staging buffer, flushing and compacting it if needed.
     *
     * @param frameLength bytes of the frame.
     * @return true when {@link #frameIndex()} has room for it.
     */
    boolean reserve(final int frameLength)
    {
        if (sendView.capacity() - sendWritePosition >= frameLength)
        {
            return true;
        }
        flush();
        if (sendFlushPosition > 0)
        {
            sendBuffer.limit(sendWritePosition).position(sendFlushPosition);
            sendBuffer.compact();
            sendWritePosition -= sendFlushPosition;
            sendFlushPosition = 0;
        }
        return sendView.capacity() - sendWritePosition >= frameLength;
    }

    /**
     * @return bytes {@link #reserve} finds for frames without anything more sent: the staging
     *         buffer less what is staged and not yet flushed (compacting gives back the rest).
     */
    int stagingRoom()
    {
        return sendView.capacity() - (sendWritePosition - sendFlushPosition);
    }

    /**
     * @return the staging buffer frames are written into.
     */
    UnsafeBuffer sendView()
    {
        return sendView;
    }

    /**
     * @return where the next frame goes in {@link #sendView()}.
     */
    int frameIndex()
    {
        return sendWritePosition;
    }

    /**
     * Stages the frame written at {@link #frameIndex()}.
     *
     * @param frameLength its bytes.
     */
    void commit(final int frameLength)
    {
        sendWritePosition += frameLength;
    }

    /**
     * Writes staged bytes without blocking; a failure loses the peer.
     *
     * @return 1 when bytes left or the peer was lost, else 0.
     */
    int flush()
    {
        if (!open || sendWritePosition == sendFlushPosition)
        {
            return 0;
        }
        try
        {
            sendBuffer.limit(sendWritePosition).position(sendFlushPosition);
            final int written = channel.write(sendBuffer);
            sendFlushPosition += written;
            if (sendFlushPosition == sendWritePosition)
            {
                sendFlushPosition = 0;
                sendWritePosition = 0;
            }
            return written > 0 ? 1 : 0;
        }
        catch (final IOException ex)
        {
            queuePair.peerLost();
            return 1;
        }
    }

    /**
     * Closes the connection, first trying a few writes of what is staged: a NAK or final ACK staged
     * just before an error should reach the peer. Also closes {@code adopted}, a channel handed over
     * but not yet opened.
     *
     * @param adopted or null.
     */
    void close(final SocketChannel adopted)
    {
        if (open)
        {
            for (int i = 0; i < 16 && sendWritePosition != sendFlushPosition; i++)
            {
                try
                {
                    sendBuffer.limit(sendWritePosition).position(sendFlushPosition);
                    sendFlushPosition += channel.write(sendBuffer);
                }
                catch (final IOException ex)
                {
                    break;
                }
            }
        }
        open = false;
        CloseHelper.quietClose(channel);
        CloseHelper.quietClose(adopted);
    }

    // ---------------------------------------------------------------- receiving

    /**
     * Reads what the peer sent, without blocking, into the free end of the receive buffer.
     *
     * @return bytes read (0 when the buffer is full or nothing waits), or -1 when the connection
     *         ended or failed.
     */
    int read()
    {
        if (receiveLimit >= receiveView.capacity())
        {
            return 0;
        }
        int bytesRead;
        try
        {
            receiveBuffer.limit(receiveView.capacity()).position(receiveLimit);
            bytesRead = channel.read(receiveBuffer);
        }
        catch (final IOException ex)
        {
            bytesRead = -1;
        }
        if (bytesRead > 0)
        {
            receiveLimit += bytesRead;
        }
        return bytesRead;
    }

    /**
     * @return the buffer frames are parsed from.
     */
    UnsafeBuffer receiveView()
    {
        return receiveView;
    }

    /**
     * @return index of the next frame to parse.
     */
    int parsePosition()
    {
        return receiveParsePosition;
    }

    /**
     * @return bytes received and not yet parsed.
     */
    int received()
    {
        return receiveLimit - receiveParsePosition;
    }

    /**
     * @param frameLength bytes of the frame at {@link #parsePosition()}, now applied.
     */
    void consume(final int frameLength)
    {
        receiveParsePosition += frameLength;
    }

    /**
     * Moves the unparsed bytes to the start of the buffer when everything was parsed, when the next
     * frame cannot complete where it starts, or when more than half the buffer is parsed.
     *
     * @param frameDoesNotFit the next frame's end lies beyond the buffer's.
     */
    void compactReceived(final boolean frameDoesNotFit)
    {
        if (receiveParsePosition == receiveLimit)
        {
            receiveParsePosition = 0;
            receiveLimit = 0;
        }
        else if (receiveParsePosition > 0 && (frameDoesNotFit || receiveParsePosition > receiveView.capacity() / 2))
        {
            receiveBuffer.limit(receiveLimit).position(receiveParsePosition);
            receiveBuffer.compact();
            receiveLimit -= receiveParsePosition;
            receiveParsePosition = 0;
        }
    }
}
