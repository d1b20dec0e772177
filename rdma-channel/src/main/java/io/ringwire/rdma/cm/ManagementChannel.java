package io.ringwire.rdma.cm;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One TCP management connection, either side: reads frames against a deadline, checks them, writes
 * frames signed by this side's identity, and refuses politely (REJ, then a bounded drain so the REJ
 * is not lost to a reset).
 *
 * <p>Which key the peer's frames must verify under is learned from its first REQ or REP
 * ({@link #authenticate}); from then on every frame it sends is verified under that key.
 *
 * <p>Every read runs against a deadline: the socket timeout is set to the time left before each
 * {@code read}, so a peer trickling one byte at a time still cannot stretch a step past its limit.
 * Writes are not timed: frames are at most about 4 KiB and fit in the socket's send buffer.
 *
 * <p>Threading: one thread at a time reads and writes; {@link #close()} may be called from any
 * thread (it unblocks a reader) and runs the close action exactly once.
 */
final class ManagementChannel implements AutoCloseable
{
    /** Bytes read and discarded after a REJ at most, so a peer that keeps sending cannot hold us. */
    private static final int DRAIN_LIMIT_BYTES = 64 * 1024;
    /** Time spent draining after a REJ at most, bounded also by the step timeout. */
    private static final long DRAIN_TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(200);

    private final Socket socket;
    private final InetSocketAddress remoteAddress;
    private final InputStream input;
    private final OutputStream output;
    private final Identity identity;
    private PeerKey peer;
    private final int version;
    private final long stepTimeoutMs;
    private final Consumer<ManagementChannel> closeAction;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch closedLatch = new CountDownLatch(1);

    /**
     * @param socket      a connected socket; owned by this channel from now on.
     * @param config      concluded configuration.
     * @param closeAction run once, with this channel, after the socket is closed.
     * @throws IOException when the socket is already closed or not connected.
     */
    ManagementChannel(final Socket socket, final ConnectionManagerConfig config,
        final Consumer<ManagementChannel> closeAction)
        throws IOException
    {
        this.socket = socket;
        this.remoteAddress = (InetSocketAddress)socket.getRemoteSocketAddress();
        this.input = socket.getInputStream();
        this.output = socket.getOutputStream();
        this.identity = config.identity();
        this.version = config.protocolVersion();
        this.stepTimeoutMs = config.timeoutMs();
        this.closeAction = closeAction;
        socket.setTcpNoDelay(true);
    }

    InetSocketAddress remoteAddress()
    {
        return remoteAddress;
    }

    long stepTimeoutMs()
    {
        return stepTimeoutMs;
    }

    /**
     * @return the deadline of a step starting now.
     */
    long stepDeadline()
    {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(stepTimeoutMs);
    }

    /**
     * @return the identity the peer proved, or null before {@link #authenticate}.
     */
    PeerKey peer()
    {
        return peer;
    }

    /** @return the protocol version this side speaks. */
    int version()
    {
        return version;
    }

    /**
     * Verifies the peer's first signed frame (its CHALLENGE, REQ or REP) under the key of the
     * identity it names, and binds the channel to that key: every later frame from the peer must
     * verify under it.
     *
     * @param frame the frame.
     * @param key   the trusted key of the identity the frame's body names.
     * @throws ProtocolViolationException BAD_AUTHENTICATION when the signature does not verify.
     */
    void authenticate(final Frame frame, final PeerKey key) throws ProtocolViolationException
    {
        if (!key.verify(frame.signed(), 0, frame.signed().length, frame.signature()))
        {
            throw new ProtocolViolationException(RejectReason.BAD_AUTHENTICATION, frame.type() + " signed as '" +
                key.name() + "' failed verification: the peer holds another key for that identity, or the message " +
                "was altered");
        }
        peer = key;
    }

    /**
     * Reads one frame and checks it in this order: header (magic, type, length), then, unless it is
     * an allowed REJ, version, signature (once the peer is {@link #authenticate}d) and type.
     *
     * @param expected      the type wanted.
     * @param rejectAllowed whether a REJ may come instead (returned unverified, see {@link WireFormat}).
     * @param deadlineNanos {@link System#nanoTime()} by which the whole frame must have arrived.
     * @return the frame, of type {@code expected} or REJ.
     * @throws EOFException                the peer closed the connection before sending a byte.
     * @throws SocketTimeoutException      the deadline passed.
     * @throws ProtocolViolationException  the frame is malformed, truncated, of another version,
     *                                     fails authentication or is of an unexpected type.
     * @throws IOException                 the connection failed.
     */
    Frame readFrame(final MessageType expected, final boolean rejectAllowed, final long deadlineNanos)
        throws IOException, ProtocolViolationException
    {
        final byte[] header = new byte[WireFormat.HEADER_LENGTH];
        final int headerRead = readFully(header, 0, header.length, deadlineNanos);
        if (headerRead == 0)
        {
            throw new EOFException(remoteAddress + " closed the management connection while " + expected +
                " was expected");
        }
        checkComplete(headerRead, header.length, "header");
        final int bodyLength = WireFormat.checkHeader(header);

        // Only now, with the length checked against MAX_BODY_LENGTH, is the body allocated.
        final byte[] signed = Arrays.copyOf(header, WireFormat.HEADER_LENGTH + bodyLength);
        checkComplete(readFully(signed, WireFormat.HEADER_LENGTH, bodyLength, deadlineNanos), bodyLength, "body");
        final MessageType type = WireFormat.type(header);
        final int frameVersion = WireFormat.version(header);
        final byte[] signature = new byte[WireFormat.trailerLength(frameVersion)];
        checkComplete(readFully(signature, 0, signature.length, deadlineNanos), signature.length, "signature");
        final Frame frame = new Frame(type, frameVersion, signed,
            Arrays.copyOfRange(signed, WireFormat.HEADER_LENGTH, signed.length), signature);
        if ((type == MessageType.REJ && rejectAllowed) || (type == MessageType.CHALLENGE && expected == type))
        {
            return frame;
        }
        if (frameVersion != version)
        {
            throw new ProtocolViolationException(RejectReason.UNSUPPORTED_VERSION, type + " carries protocol " +
                "version " + frameVersion + " but this side speaks version " + version);
        }
        if (null != peer && !peer.verify(signed, 0, signed.length, signature))
        {
            throw new ProtocolViolationException(RejectReason.BAD_AUTHENTICATION, type + " failed verification " +
                "under the key of '" + peer.name() + "', whose REQ or REP this connection verified: altered, or " +
                "not from that peer");
        }
        if (type != expected)
        {
            throw new ProtocolViolationException(RejectReason.MALFORMED, "expected " + expected +
                (rejectAllowed ? " or REJ" : "") + " but received " + type);
        }
        return frame;
    }

    /**
     * The peer's refusal, when a frame read with {@code rejectAllowed} is a REJ.
     *
     * @param frame what {@link #readFrame} returned.
     * @param step  the message the REJ answers, e.g. "REQ", for the exception's message.
     * @return the refusal to throw, or null when the frame is not a REJ.
     * @throws ProtocolViolationException MALFORMED when the REJ cannot be decoded.
     */
    ConnectionRejectedException rejection(final Frame frame, final String step) throws ProtocolViolationException
    {
        if (frame.type() != MessageType.REJ)
        {
            return null;
        }
        final RejectMessage reject = WireFormat.decodeReject(frame.body());
        return new ConnectionRejectedException(remoteAddress, step, reject.reason(), reject.text());
    }

    /**
     * Writes one signed frame.
     *
     * @throws IOException when the connection failed.
     */
    void write(final MessageType type, final byte[] body) throws IOException
    {
        output.write(WireFormat.encodeFrame(type, version, body, identity));
        output.flush();
    }

    /**
     * Sends a REJ as a courtesy (failures ignored: the peer may be gone), lets the peer read it, and
     * closes.
     *
     * @param echoedNonce the refused message's nonce, or zeros.
     * @param reason      why.
     * @param text        details the peer can act on; never a key.
     */
    void rejectAndClose(final byte[] echoedNonce, final RejectReason reason, final String text)
    {
        rejectAndClose(echoedNonce, reason, text, true);
    }

    /**
     * {@link #rejectAndClose(byte[], RejectReason, String)}, or, without {@code drain}, closed as
     * soon as the REJ is written: the peer may then see the connection reset instead of the reason.
     */
    void rejectAndClose(final byte[] echoedNonce, final RejectReason reason, final String text, final boolean drain)
    {
        try
        {
            write(MessageType.REJ, WireFormat.encodeReject(echoedNonce, reason, text));
            socket.shutdownOutput();
            if (drain)
            {
                drain();
            }
        }
        catch (final IOException ex)
        {
            // The peer has gone or reset the connection: there is nobody left to tell.
        }
        finally
        {
            close();
        }
    }

    /**
     * Closing a socket with unread input makes TCP reset the connection, which can destroy the REJ
     * before the peer reads it; so read what the peer still sends, within bounds, until it closes.
     */
    private void drain() throws IOException
    {
        final long deadline = System.nanoTime() +
            Math.min(DRAIN_TIMEOUT_NS, TimeUnit.MILLISECONDS.toNanos(stepTimeoutMs));
        final byte[] scratch = new byte[4096];
        int drained = 0;
        try
        {
            while (drained < DRAIN_LIMIT_BYTES)
            {
                setTimeoutUntil(deadline);
                final int count = input.read(scratch);
                if (count < 0)
                {
                    return;
                }
                drained += count;
            }
        }
        catch (final SocketTimeoutException ex)
        {
            // Bounded wait over: close anyway.
        }
    }

    private int readFully(final byte[] buffer, final int offset, final int length, final long deadlineNanos)
        throws IOException
    {
        int read = 0;
        while (read < length)
        {
            setTimeoutUntil(deadlineNanos);
            final int count = input.read(buffer, offset + read, length - read);
            if (count < 0)
            {
                return read;
            }
            read += count;
        }
        return read;
    }

    /**
     * Sets the socket timeout to the time left before the deadline, rounded up to a millisecond.
     *
     * @throws SocketTimeoutException when the deadline has passed.
     */
    private void setTimeoutUntil(final long deadlineNanos) throws IOException
    {
        final long remainingNs = deadlineNanos - System.nanoTime();
        if (remainingNs <= 0)
        {
            throw new SocketTimeoutException("deadline passed");
        }
        final long remainingMs = TimeUnit.NANOSECONDS.toMillis(remainingNs + 999_999);
        socket.setSoTimeout((int)Math.min(Integer.MAX_VALUE, remainingMs));
    }

    private void checkComplete(final int read, final int expected, final String part) throws ProtocolViolationException
    {
        if (read < expected)
        {
            throw new ProtocolViolationException(RejectReason.MALFORMED, "truncated frame: the connection closed " +
                "after " + read + " of " + expected + " " + part + " bytes");
        }
    }

    /**
     * Closes the socket (unblocking a reader) and runs the close action, once. Safe from any thread.
     */
    @Override
    public void close()
    {
        if (closed.compareAndSet(false, true))
        {
            try
            {
                socket.close();
            }
            catch (final IOException ex)
            {
                // Nothing useful to do: the socket is unusable either way.
            }
            finally
            {
                closedLatch.countDown();
                closeAction.accept(this);
            }
        }
    }

    /**
     * Waits until {@link #close()} has run or the time is up.
     *
     * @return whether the channel is closed.
     * @throws InterruptedException when the waiting thread is interrupted.
     */
    boolean awaitClosed(final long timeoutNanos) throws InterruptedException
    {
        return closedLatch.await(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * @return whether {@link #close()} has been called.
     */
    boolean isClosed()
    {
        return closed.get();
    }
}
