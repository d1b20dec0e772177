package io.ringwire.rdma.cm;

import io.ringwire.rdma.RdmaException;

import java.io.EOFException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The passive side of the connection manager: listens on a TCP port, authenticates each incoming
 * REQ and queues the valid ones for {@link #accept(Duration)}; the application then answers each
 * with {@link PendingConnection#complete} or {@link PendingConnection#reject}.
 *
 * <p>Robustness: a daemon thread accepts TCP connections and hands each to its own virtual thread,
 * which sends the connection's CHALLENGE and reads the REQ against the step timeout; so a peer that
 * connects and says nothing, or trickles bytes, holds only that virtual thread and only until the
 * timeout, while other peers connect. At most {@link ConnectionManagerConfig#maxPendingHandshakes()}
 * handshakes run at once (from TCP accept until complete, reject or failure), and at most
 * {@link ConnectionManagerConfig#maxPendingPerSource()} from one source address, so a flood of
 * silent connections from one address leaves room for everyone else; further connections from it
 * are closed at once and counted. A flood from many addresses (an IPv6 host holds many) fills the
 * limit itself: a connection that finds it full takes the slot of a connection that has not yet
 * proved an identity (closed and counted), the oldest of the address holding the most, since a
 * genuine peer proves one within a round trip of its CHALLENGE and only connections that never
 * speak grow old unproven. Each taken slot costs a new CHALLENGE's signature, so at most
 * {@link ConnectionManagerConfig#maxPendingHandshakes()} are taken every
 * {@value HandshakeSlots#EVICTION_WINDOW_MS} ms ({@link HandshakeSlots}); past that, or with no
 * unproven connection, the new one is closed and counted. One source address also opens at most
 * {@link ConnectionManagerConfig#challengesPerSource()} connections a second, since a loop that
 * connects and closes at once holds few slots but costs a signature each time; past that its
 * connections are closed unanswered and counted. A REQ that does not echo its own connection's
 * challenge (recorded elsewhere and replayed) is refused as {@link RejectReason#STALE_REQUEST}
 * before anything is revealed.
 * Every refusal (bad authentication, unsupported version, malformed frame, timeout, at capacity, over rate) is
 * counted in {@link #counters()} and logged at WARNING with the remote socket address, at most once
 * per source address an interval ({@link RefusalLog}); the peer gets a REJ with the reason. So are a
 * REJ in answer to the CHALLENGE (unsigned: anyone can send one) and a connection reset mid-handshake,
 * which need no REJ. No exception from a peer's bytes ever escapes the listener's threads.
 *
 * <p>A request the application has not answered (accepted and completed or rejected) within the
 * step timeout of its arrival is withdrawn and refused as TIMEOUT (counted): an active side with the
 * same configuration has stopped waiting for REP by then. The virtual thread that read the request
 * keeps that time, so a forgotten request never holds a handshake slot for longer.
 *
 * <p>Threading: {@link #accept}, {@link #localAddress()}, {@link #counters()} and {@link #close()}
 * are safe from any thread.
 */
public final class ConnectionListener implements AutoCloseable
{
    private static final System.Logger LOGGER = System.getLogger(ConnectionListener.class.getName());
    /** Pause after an unexpected accept failure (e.g. out of file descriptors), so the loop does not spin. */
    private static final long ACCEPT_RETRY_PAUSE_NS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final Duration ACCEPT_THREAD_JOIN_TIMEOUT = Duration.ofSeconds(1);
    /** TCP connections the kernel queues for the accept loop (the system's somaxconn caps it). */
    private static final int ACCEPT_BACKLOG = 4096;
    /** Queued in place of a request when the listener closes, to wake blocked accept calls. */
    private static final Queued CLOSED = new Queued(null);

    private final ConnectionManagerConfig config;
    private final ServerSocket serverSocket;
    private final InetSocketAddress localAddress;
    private final ConnectionManagerCounters counters = new ConnectionManagerCounters();
    private final LinkedBlockingQueue<Queued> requests = new LinkedBlockingQueue<>();
    private final HandshakeSlots slots;
    /** A flood is refused at the rate it arrives: its warnings are not, so they are rate-limited. */
    private final RefusalLog refusalLog = new RefusalLog(LOGGER);
    private final Set<ManagementChannel> openChannels = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread acceptThread;

    /** An authenticated request waiting for accept, or {@link #CLOSED}. */
    private record Queued(PendingConnection pending)
    {
    }

    private ConnectionListener(final ConnectionManagerConfig config, final ServerSocket serverSocket)
    {
        this.config = config;
        this.serverSocket = serverSocket;
        this.localAddress = (InetSocketAddress)serverSocket.getLocalSocketAddress();
        this.slots = new HandshakeSlots(config);
        this.acceptThread = Thread.ofPlatform()
            .daemon()
            .name("ringwire-cm-listener-" + localAddress.getPort())
            .unstarted(this::acceptLoop);
    }

    /**
     * Binds a listener and starts accepting on a daemon thread.
     *
     * <p>Threading: any thread.
     *
     * @param address where to listen; port 0 picks a free port (see {@link #localAddress()}).
     * @param config  concluded configuration: this side's identity and the identities it accepts.
     * @return the running listener; close it to stop.
     * @throws RdmaException         when the address cannot be bound (in use, not local, no permission).
     * @throws IllegalStateException when the configuration is not concluded.
     */
    public static ConnectionListener bind(final InetSocketAddress address, final ConnectionManagerConfig config)
    {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(config, "config");
        config.checkConcluded();
        ServerSocket serverSocket = null;
        try
        {
            serverSocket = new ServerSocket();
            serverSocket.setReuseAddress(true);
            // A backlog beyond the handshake limit: refusing a flood takes the accept loop a moment per
            // connection, and a genuine peer's connect must not be dropped from the queue meanwhile.
            serverSocket.bind(address, Math.max(ACCEPT_BACKLOG, config.maxPendingHandshakes()));
        }
        catch (final IOException ex)
        {
            if (serverSocket != null)
            {
                try
                {
                    serverSocket.close();
                }
                catch (final IOException closeEx)
                {
                    ex.addSuppressed(closeEx);
                }
            }
            throw new RdmaException("cannot bind the connection listener to " + address + ": " + ex.getMessage() +
                "; choose a free local address, or port 0 for any free port", ex);
        }
        final ConnectionListener listener = new ConnectionListener(config, serverSocket);
        listener.acceptThread.start();
        return listener;
    }

    /**
     * @return the bound address (with the actual port when bound to port 0).
     */
    public InetSocketAddress localAddress()
    {
        return localAddress;
    }

    /**
     * @return the name of the identity this listener proves.
     */
    String identityName()
    {
        return config.identity().name();
    }

    /**
     * @return this listener's counters.
     */
    public ConnectionManagerCounters counters()
    {
        return counters;
    }

    /**
     * Takes the next authenticated request, waiting up to {@code timeout} for one.
     *
     * <p>Threading: any thread; several threads may accept concurrently, each request goes to one.
     *
     * @param timeout how long to wait; zero or negative returns at once.
     * @return the request, to be answered with exactly one of {@link PendingConnection#complete} or
     *         {@link PendingConnection#reject}; or null when none arrived in time.
     * @throws InterruptedException  when the calling thread is interrupted while waiting.
     * @throws IllegalStateException when the listener is or becomes closed.
     */
    public PendingConnection accept(final Duration timeout) throws InterruptedException
    {
        Objects.requireNonNull(timeout, "timeout");
        checkOpen();
        final long timeoutNs = saturatedNanos(timeout);
        final long start = System.nanoTime();
        while (true)
        {
            final long remainingNs = timeoutNs - (System.nanoTime() - start);
            final Queued queued = requests.poll(Math.max(0, remainingNs), TimeUnit.NANOSECONDS);
            if (queued == null)
            {
                return null;
            }
            if (queued == CLOSED)
            {
                requests.offer(CLOSED); // for the next blocked caller
                checkOpen();
            }
            else if (!queued.pending().isExpired(System.nanoTime()))
            {
                return queued.pending();
            }
            // else: too old to answer; its timer refuses it as TIMEOUT
        }
    }

    private static long saturatedNanos(final Duration duration)
    {
        try
        {
            return Math.max(0, duration.toNanos());
        }
        catch (final ArithmeticException ex)
        {
            return duration.isNegative() ? 0 : Long.MAX_VALUE;
        }
    }

    private void checkOpen()
    {
        if (closed.get())
        {
            throw new IllegalStateException("connection listener on " + localAddress + " is closed");
        }
    }

    private void acceptLoop()
    {
        while (!closed.get())
        {
            final Socket socket;
            try
            {
                socket = serverSocket.accept();
            }
            catch (final IOException ex)
            {
                if (!closed.get())
                {
                    LOGGER.log(Level.WARNING, "connection listener on " + localAddress + " failed to accept; retrying",
                        ex);
                    LockSupport.parkNanos(ACCEPT_RETRY_PAUSE_NS);
                }
                continue;
            }
            try
            {
                admit(socket);
            }
            catch (final RuntimeException ex)
            {
                // Keep listening whatever went wrong with one socket.
                LOGGER.log(Level.WARNING, "connection listener on " + localAddress + " dropped the connection from " +
                    socket.getRemoteSocketAddress() + " after an unexpected failure", ex);
                ConnectionManager.closeQuietly(socket);
            }
        }
    }

    private void admit(final Socket socket)
    {
        final InetAddress source = socket.getInetAddress();
        final int outcome = slots.take(source, this::evict);
        if (outcome != HandshakeSlots.TAKEN)
        {
            final String why;
            switch (outcome)
            {
                case HandshakeSlots.AT_CAPACITY ->
                {
                    counters.incrementRefusedAtCapacity();
                    why = config.maxPendingHandshakes() + " handshakes are already pending (" +
                        ConnectionManagerConfig.MAX_PENDING_PROP + "); accept requests faster or raise the limit";
                }
                case HandshakeSlots.AT_SOURCE_LIMIT ->
                {
                    counters.incrementRefusedPerSource();
                    why = "that address already holds " + config.maxPendingPerSource() + " pending handshakes (" +
                        ConnectionManagerConfig.MAX_PENDING_PER_SOURCE_PROP + ")";
                }
                default ->
                {
                    counters.incrementRefusedSourceRate();
                    why = "that address opened " + config.challengesPerSource() + " in the last second (" +
                        ConnectionManagerConfig.CHALLENGES_PER_SOURCE_PROP + ")";
                }
            }
            refusalLog.warn(source, "connection listener on " + localAddress + " refused management connections " +
                "from " + source.getHostAddress() + ": " + why);
            ConnectionManager.closeQuietly(socket);
            return;
        }
        final ManagementChannel channel;
        try
        {
            channel = new ManagementChannel(socket, config, this::channelClosed);
        }
        catch (final IOException ex)
        {
            ConnectionManager.closeQuietly(socket);
            slots.giveBack(source);
            return; // the peer is already gone
        }
        slots.admitted(channel); // before anyone can close it: its close releases what this took
        openChannels.add(channel);
        if (closed.get())
        {
            channel.close(); // close() ran after the accept: it may not have seen this channel
            return;
        }
        Thread.ofVirtual()
            .name("ringwire-cm-handshake-" + channel.remoteAddress())
            .start(() -> readRequest(channel));
    }

    /** Closes, counts and logs a connection {@link HandshakeSlots} evicts for one from {@code source}. */
    private void evict(final ManagementChannel victim, final InetAddress source)
    {
        counters.incrementEvictedUnauthenticated();
        refusalLog.warn(victim.remoteAddress().getAddress(), "connection listener on " + localAddress +
            " closed the management connection from " + victim.remoteAddress() + ", which had proved no " +
            "identity yet, to make room for one from " + source.getHostAddress() + ": " +
            config.maxPendingHandshakes() + " handshakes are pending (" + ConnectionManagerConfig.MAX_PENDING_PROP +
            ")");
        victim.close(); // its close action gives its slot back
    }

    /**
     * Runs on the handshake's virtual thread: challenges the peer, then reads, verifies and queues
     * one REQ that answers the challenge, or refuses it.
     */
    private void readRequest(final ManagementChannel channel)
    {
        try
        {
            final byte[] challenge = Nonces.newNonce();
            channel.write(MessageType.CHALLENGE, WireFormat.encodeChallenge(challenge, identityName()));
            final Frame frame = channel.readFrame(MessageType.REQ, true, channel.stepDeadline());
            final ConnectionRejectedException refusedUs = channel.rejection(frame, "CHALLENGE");
            if (null != refusedUs)
            {
                // The active side refused this listener (a name it does not accept here, or a key it
                // does not hold): counted and logged here, for whoever runs this end to see. A REJ is
                // unsigned, so anyone can send one: its warning goes through the refusal log, one
                // per source an interval, as any other refusal's.
                if (!closed.get())
                {
                    counters.incrementChallengesRefused();
                    refusalLog.warn(channel.remoteAddress().getAddress(), "connection listener on " + localAddress +
                        ": the active side at " + channel.remoteAddress() + " refused this listener's CHALLENGE " +
                        "(identity '" + identityName() + "'): " + refusedUs.reason() + ": " + refusedUs.peerText());
                }
                channel.close();
                return;
            }
            final ConnectMessage request;
            try
            {
                request = WireFormat.decodeConnect(MessageType.REQ, frame.body());
                final PeerKey key = config.trusted().get(request.identity());
                if (null == key)
                {
                    throw new ProtocolViolationException(RejectReason.UNKNOWN_IDENTITY, "the REQ signs as '" +
                        request.identity() + "', which this endpoint does not accept");
                }
                channel.authenticate(frame, key);
                if (!Arrays.equals(request.echoedNonce(), challenge))
                {
                    throw new ProtocolViolationException(RejectReason.STALE_REQUEST, "the REQ does not answer this " +
                        "connection's challenge: it was recorded from another connection and replayed, or its " +
                        "sender speaks a protocol without challenges");
                }
                if (!identityName().equals(request.addressedTo()))
                {
                    throw new ProtocolViolationException(RejectReason.STALE_REQUEST, "the REQ was made for the " +
                        "listener '" + request.addressedTo() + "', not this one ('" + identityName() + "'): relayed " +
                        "from another listener's handshake");
                }
            }
            catch (final ProtocolViolationException ex)
            {
                refuse(channel, WireFormat.nonce(frame.body()), ex.reason(), ex.getMessage());
                return;
            }
            if (!slots.proved(channel))
            {
                return; // evicted as it proved itself: it is closed, its slot taken
            }
            final PendingConnection pending = new PendingConnection(this, channel, request,
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.timeoutMs()));
            final Queued queued = new Queued(pending);
            counters.incrementAccepted();
            requests.add(queued);
            if (closed.get() && requests.remove(queued))
            {
                channel.close(); // close() cleared the queue before this request was added
                return;
            }
            expireWhenDue(queued);
        }
        catch (final SocketTimeoutException ex)
        {
            refuse(channel, WireFormat.noNonce(), RejectReason.TIMEOUT, "no complete REQ within " +
                config.timeoutMs() + " ms");
        }
        catch (final ProtocolViolationException ex)
        {
            refuse(channel, WireFormat.noNonce(), ex.reason(), ex.getMessage());
        }
        catch (final EOFException ex)
        {
            // Connected and closed without a byte: a port probe or health check, not an attack.
            LOGGER.log(Level.DEBUG, () -> channel.remoteAddress() + " closed its management connection without " +
                "sending a REQ");
            channel.close();
        }
        catch (final IOException ex)
        {
            // A reset, or another failure of the connection: the peer's doing (or its network's),
            // counted, and warned of per source an interval since a peer can reset at will.
            if (!closed.get() && !channel.isClosed()) // closed: evicted, and counted there
            {
                counters.incrementLostInHandshake();
                refusalLog.warn(channel.remoteAddress().getAddress(), "management connection from " +
                    channel.remoteAddress() + " to " + localAddress + " failed before its REQ was read: " + ex);
            }
            channel.close();
        }
        catch (final RuntimeException ex)
        {
            if (!closed.get() && !channel.isClosed())
            {
                LOGGER.log(Level.WARNING, "management connection from " + channel.remoteAddress() + " to " +
                    localAddress + " failed while reading the REQ", ex);
            }
            channel.close();
        }
    }

    /**
     * Runs on the virtual thread that read the request, as its timer: once the step timeout has passed
     * since the REQ arrived, withdraws the request from the accept queue and, unless the application
     * has answered it, refuses it as TIMEOUT. Ends early when the management connection closes
     * (answered, refused, or the listener closed).
     */
    private void expireWhenDue(final Queued queued)
    {
        final PendingConnection pending = queued.pending();
        try
        {
            if (pending.awaitClosedUntilExpiry())
            {
                return;
            }
        }
        catch (final InterruptedException ex)
        {
            // Nothing interrupts this thread on purpose; if something does, expire now rather than never.
            Thread.currentThread().interrupt();
        }
        requests.remove(queued);
        pending.expire();
    }

    /**
     * Counts, logs and answers a refusal, then closes the management connection. After
     * {@link #close()} it only closes the connection.
     *
     * <p>Threading: any thread holding the channel.
     */
    void refuse(final ManagementChannel channel, final byte[] echoedNonce, final RejectReason reason,
        final String detail)
    {
        if (counted(channel, reason))
        {
            logAndReject(channel, echoedNonce, reason, detail);
        }
    }

    /**
     * {@link #refuse}, counted at once and answered on a virtual thread of its own: the REJ's bounded
     * drain waits for the peer to close, and a peer that holds its end open would otherwise hold the
     * caller (an application's polling thread) for the whole bound.
     *
     * <p>Threading: any thread holding the channel; returns without waiting on the peer.
     */
    void refuseWithoutWaiting(final ManagementChannel channel, final byte[] echoedNonce, final RejectReason reason,
        final String detail)
    {
        if (counted(channel, reason))
        {
            Thread.ofVirtual()
                .name("ringwire-cm-reject-" + channel.remoteAddress())
                .start(() -> logAndReject(channel, echoedNonce, reason, detail));
        }
    }

    /** @return false, the connection closed, once the listener is closed; else true, the refusal counted. */
    private boolean counted(final ManagementChannel channel, final RejectReason reason)
    {
        if (closed.get())
        {
            channel.close();
            return false;
        }
        counters.incrementRejected(reason);
        return true;
    }

    private void logAndReject(final ManagementChannel channel, final byte[] echoedNonce, final RejectReason reason,
        final String detail)
    {
        refusalLog.warn(channel.remoteAddress().getAddress(), "connection listener on " + localAddress +
            " rejected the handshake from " + channel.remoteAddress() + ": " + reason + ": " + detail);
        // Refused, the connection needs no slot: the REJ's drain waits on the peer, and a peer that
        // proved an identity (never evicted) would otherwise hold a slot for the drain's bound with
        // each connection it opens and leaves open, enough of them keeping every slot from others.
        // The drains are bounded apart; past that bound a refusal closes once its REJ is written.
        slots.release(channel);
        if (slots.startDrain())
        {
            try
            {
                channel.rejectAndClose(echoedNonce, reason, detail);
            }
            finally
            {
                slots.endDrain();
            }
        }
        else
        {
            channel.rejectAndClose(echoedNonce, reason, detail, false);
        }
    }

    /**
     * The close action of every channel this listener admitted: its handshake slot is given back here
     * unless its refusal gave it back already ({@link HandshakeSlots#release} takes it once).
     */
    private void channelClosed(final ManagementChannel channel)
    {
        openChannels.remove(channel);
        slots.release(channel);
    }

    /**
     * Stops listening, closes every management connection still handshaking (their
     * {@link PendingConnection#complete} calls fail) and wakes blocked {@link #accept} calls.
     * Idempotent; safe from any thread. Queue pairs already connected are not affected.
     */
    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        try
        {
            serverSocket.close();
        }
        catch (final IOException ex)
        {
            LOGGER.log(Level.DEBUG, () -> "closing the server socket on " + localAddress + " failed: " + ex);
        }
        for (final ManagementChannel channel : openChannels)
        {
            channel.close();
        }
        requests.clear();
        requests.offer(CLOSED);
        if (acceptThread != Thread.currentThread())
        {
            try
            {
                // The accept loop ends as soon as the server socket is closed; the bound is a safety net.
                acceptThread.join(ACCEPT_THREAD_JOIN_TIMEOUT);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
