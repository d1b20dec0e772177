package io.ringwire.messaging;

import io.ringwire.messaging.protocol.FrameDescriptor;
import io.ringwire.messaging.protocol.SessionSetup;
import io.ringwire.messaging.status.PublicationCounters;
import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.cm.ConnectionManagerConfig;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AtomicBuffer;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A publication's subscribers, one {@link PublicationDestination} per endpoint of its channel, and
 * which of them are connected: connecting and reconnecting them (under a new session once nobody
 * holds the old one), joining each at the publication's position, declaring silent ones gone after
 * the liveness timeout, disconnecting one whose completion or post failed or whose send queue
 * stays full, and saying why the last attempt failed. The publication decides what goes out and
 * hands each frame to {@link #post} for every connected destination, and reads their credit; it
 * is told of every connection and disconnection, since either changes what the connected ones
 * allow.
 *
 * <p>Threading: the publication's owning thread.
 */
final class PublicationDestinations implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(PublicationDestinations.class.getName());

    /**
     * How long a destination must have held the publication back, at every look, before its owner
     * may cut it ({@link #disconnectSlowest}): several looks, well past a burst's moment.
     */
    static final long MIN_BLOCKING_NS = 50_000_000L;
    /** The longest wait before a subscriber cut as slow again and again is reconnected. */
    static final long MAX_SLOW_BACKOFF_NS = TimeUnit.SECONDS.toNanos(30);
    /** Connected this long before its next cut, a subscriber's earlier slow-consumer cuts are forgotten. */
    static final long SLOW_CUTS_FORGOTTEN_NS = TimeUnit.SECONDS.toNanos(60);
    /** Writes one destination's queue pair may have outstanding, where the device allows it. */
    private static final int SEND_DEPTH = 4096;
    /** The fewest: a device that cannot hold this many per destination refuses the publication. */
    private static final int MIN_SEND_DEPTH = 256;
    /** Receives a destination's queue pair posts (the subscriber sends none: a spare few). */
    private static final int RECEIVE_DEPTH = 16;
    /** Spare completion-queue entries besides the destinations'. */
    private static final int COMPLETION_QUEUE_SPARE = 64;

    /** Every destination, connected or not, in the order of the channel's endpoints. */
    final PublicationDestination[] all;
    /** Disconnects the destination whose queue pair a failed completion came from. */
    final CompletionHandler completionHandler = this::onCompletion;
    private final MessagingContext context;
    /** The identity this publication proves and the subscribers it accepts, at each destination. */
    private final ConnectionManagerConfig[] keys;
    private final CompletionQueue completionQueue;
    private final ProtectionDomain domain;
    private final QueuePairConfig queuePairConfig;
    private final PublicationCounters counters;
    /** The publication's reaction to a destination connecting or disconnecting. */
    private final Runnable onConnectionChange;
    private final int streamId;
    private final int ringCapacity;
    /** The publication's staging buffer: where a memory log's unread frames wait to be written again. */
    private final AtomicBuffer staging;
    private int sessionId;
    /** The channel named the session id ({@code session-id=}): it is kept when a new session starts. */
    private final boolean fixedSessionId;
    /** When the duty cycle last looked at who holds the publication back ({@link #disconnectSlow}). */
    private long lastLookNs;
    private int connectedCount;
    /** Successful connections over the publication's life (more than one: it reconnected). */
    private long connections;
    /** The subscribers' rings are memory logs: no completion tells of a failed queue pair. */
    private final boolean memoryLog;

    /**
     * @param context            the publication's context (timeouts, intervals).
     * @param keys               the connection manager's settings for each endpoint ({@link ChannelKeys}).
     * @param endpoints          the subscribers' endpoints.
     * @param device             the publication's device.
     * @param domain             where queue pairs and the destinations' regions come from.
     * @param completionQueue    every destination's queue pair completes here, of
     *                           {@link #completionQueueDepth} at least.
     * @param counters           the publication's counters (connects, disconnects, failures).
     * @param streamId           the stream.
     * @param ringCapacity       the ring the publication writes with.
     * @param staging            the publication's staging buffer, as large as the ring.
     * @param sessionId          the channel's session id, kept for every session; empty: random.
     * @param onConnectionChange run after each connection and disconnection.
     */
    PublicationDestinations(final MessagingContext context, final List<ConnectionManagerConfig> keys,
        final List<InetSocketAddress> endpoints,
        final Device device, final ProtectionDomain domain, final CompletionQueue completionQueue,
        final PublicationCounters counters, final int streamId, final int ringCapacity, final AtomicBuffer staging,
        final OptionalInt sessionId, final Runnable onConnectionChange)
    {
        this.fixedSessionId = sessionId.isPresent();
        this.sessionId = sessionId.orElseGet(() -> ThreadLocalRandom.current().nextInt());
        this.staging = staging;
        this.context = context;
        if (keys.size() != endpoints.size())
        {
            throw new IllegalArgumentException(keys.size() + " key settings for " + endpoints.size() + " endpoints");
        }
        this.keys = keys.toArray(new ConnectionManagerConfig[0]);
        this.completionQueue = completionQueue;
        this.domain = domain;
        this.queuePairConfig = new QueuePairConfig(completionQueue, completionQueue,
            sendDepth(device, endpoints.size()), RECEIVE_DEPTH, device.maxInlineData());
        this.counters = counters;
        this.streamId = streamId;
        this.ringCapacity = ringCapacity;
        this.onConnectionChange = onConnectionChange;
        this.memoryLog = device.mapsRemoteMemory();
        this.all = new PublicationDestination[endpoints.size()];
        for (int i = 0; i < all.length; i++)
        {
            all[i] = new PublicationDestination(endpoints.get(i), domain, device.mapsRemoteMemory());
        }
    }

    /**
     * Each destination's queue pair may put its whole send and receive queues on the shared
     * completion queue at once (a queue pair going to ERROR flushes every request, signaled or not),
     * so the completion queue holds them all, and the send depth shrinks to what the device's
     * deepest completion queue holds.
     *
     * @param device    the publication's device.
     * @param endpoints how many destinations.
     * @return the depth the publication's completion queue needs.
     * @throws IllegalArgumentException when even the smallest send depth does not fit.
     */
    static int completionQueueDepth(final Device device, final int endpoints)
    {
        return (sendDepth(device, endpoints) + RECEIVE_DEPTH) * endpoints + COMPLETION_QUEUE_SPARE;
    }

    private static int sendDepth(final Device device, final int endpoints)
    {
        final int sendDepth = Math.min(SEND_DEPTH,
            (device.maxCompletionQueueDepth() - COMPLETION_QUEUE_SPARE) / endpoints - RECEIVE_DEPTH);
        if (sendDepth < MIN_SEND_DEPTH)
        {
            throw new IllegalArgumentException("a publication to " + endpoints + " endpoints needs a completion queue " +
                "of " + ((MIN_SEND_DEPTH + RECEIVE_DEPTH) * endpoints + COMPLETION_QUEUE_SPARE) + " entries at least; " +
                device.name() + " allows " + device.maxCompletionQueueDepth() +
                ": publish to fewer endpoints from one publication");
        }
        return sendDepth;
    }

    /** @return the current session id (a new one after every full reconnection). */
    int sessionId()
    {
        return sessionId;
    }

    /**
     * @param position the publication's position: a subscriber's counts as at most that.
     * @return the slowest connected subscriber's consumed position, or Long.MAX_VALUE with none connected.
     */
    long slowestConsumedPosition(final long position)
    {
        long slowest = Long.MAX_VALUE;
        for (final PublicationDestination destination : all)
        {
            slowest = destination.connected ? Math.min(slowest, consumedWithin(destination, position)) : slowest;
        }
        return slowest;
    }

    /** @return frames every connected subscriber has a receive posted for; 0 with none connected. */
    long receiveHeadroom()
    {
        long headroom = Long.MAX_VALUE;
        for (final PublicationDestination destination : all)
        {
            headroom = destination.connected ? Math.min(headroom, destination.receiveHeadroom()) : headroom;
        }
        return headroom == Long.MAX_VALUE ? 0 : headroom;
    }

    /**
     * @return whether a connected subscriber wants checksummed frames (every subscriber then gets
     *         them; each verifies what it gets).
     */
    boolean checksumsWanted()
    {
        boolean wanted = false;
        for (final PublicationDestination destination : all)
        {
            wanted |= destination.connected && destination.frameChecksums;
        }
        return wanted;
    }

    /** @return true when at least one destination is connected. */
    boolean isConnected()
    {
        return connectedCount > 0;
    }

    /** @return true when every destination is connected. */
    boolean allConnected()
    {
        return connectedCount == all.length;
    }

    /** @return connections made over the publication's life; more than one means it reconnected. */
    long connections()
    {
        return connections;
    }

    /**
     * Moves every disconnected destination on: adopts finished connection attempts (joining each
     * new subscriber at {@code position}), and starts a new attempt where the reconnect interval has
     * passed since the last one, or at once when {@code force}.
     *
     * @param nowNs    the time now.
     * @param force    true to attempt without waiting for the reconnect interval.
     * @param position the publication's position: where a new subscriber starts.
     * @return attempts started and connections made.
     */
    int connectDisconnected(final long nowNs, final boolean force, final long position)
    {
        if (allConnected())
        {
            return 0;
        }
        int work = 0;
        for (int i = 0; i < all.length; i++)
        {
            final PublicationDestination destination = all[i];
            if (destination.connected)
            {
                continue;
            }
            if (destination.isConnecting())
            {
                final long written;
                if (destination.completeConnect(nowNs) > 0 && (written = destination.join(position, staging)) >= 0)
                {
                    if (destination.unreadDropped())
                    {
                        counters.resendsDropped.incrementRelease();
                        LOG.log(System.Logger.Level.WARNING, "publication stream=" + streamId + " session=" +
                            sessionId + " could not write again to the subscriber at " + destination.endpoint +
                            " what its closed image had left unread (the stream moved on, it wants checksums, or" +
                            " a frame taken was not whole): those frames are lost to it");
                    }
                    if (written > 0)
                    {
                        counters.framesResent.getAndAddRelease(written);
                        LOG.log(System.Logger.Level.INFO, "publication stream=" + streamId + " session=" + sessionId +
                            " wrote " + written + " frames again to the subscriber at " + destination.endpoint +
                            ": its closed image had left them unread");
                    }
                    destination.joinedNs = nowNs;
                    connectedCount++;
                    connections++;
                    onConnectionChange.run();
                    counters.connects.incrementRelease();
                    work++;
                }
                continue;
            }
            if ((!force && nowNs - destination.lastAttemptNs < context.reconnectIntervalNs()) ||
                nowNs - destination.reconnectNotBeforeNs < 0)
            {
                continue;
            }
            if (connectedCount == 0 && !anyConnecting() && !fixedSessionId)
            {
                // Nobody saw the old session: start a new one, as Aeron does for a new publication.
                sessionId = ThreadLocalRandom.current().nextInt();
            }
            if (memoryLog && all.length == 1)
            {
                // One subscriber: nothing was published since it went, so what its closed image left
                // unread can be written again into its next connection (fan-out moves on without it).
                destination.takeUnread(staging, position);
            }
            final SessionSetup setup = new SessionSetup(streamId, sessionId, ringCapacity, position);
            if (destination.beginConnect(domain, queuePairConfig, setup, keys[i], nowNs))
            {
                work++;
            }
        }
        return work;
    }

    /**
     * @param frames frames to post.
     * @param bytes  their bytes.
     * @return true when every connected queue pair can post them now (send queue room).
     */
    boolean canPostSends(final int frames, final long bytes)
    {
        for (final PublicationDestination destination : all)
        {
            if (destination.connected && !destination.queuePair.canPostSends(frames, bytes))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Sends each connected destination a keepalive ({@link PublicationDestination#sendKeepalive}):
     * the heartbeat of a publication that no frame can leave, because a live subscriber's full ring
     * holds the stream back. The others, caught up, would otherwise hear nothing and close their
     * images at the liveness timeout.
     *
     * @param position the publication's position.
     * @param staging  its staging region.
     * @return keepalives sent.
     */
    int sendKeepalives(final long position, final MemoryRegion staging)
    {
        int sent = 0;
        for (final PublicationDestination destination : all)
        {
            if (!destination.connected)
            {
                continue;
            }
            final int result = destination.sendKeepalive(position, staging);
            if (result == PostResult.OK)
            {
                sent++;
            }
            else if (result != PostResult.QUEUE_FULL)
            {
                counters.sendFailures.incrementRelease();
                disconnect(destination, "keepalive post failed: " + PostResult.name(result));
            }
        }
        return sent;
    }

    /**
     * Posts an admitted frame to one connected destination. Its send queue drains as completions are
     * reaped, so a full one is waited on; one that stays full for the liveness timeout, or a post
     * that fails, disconnects the destination.
     *
     * @param destination one of {@link #all}, connected.
     * @param position    the frame's stream position.
     * @param staging     the publication's staging region.
     * @param frameOffset where the frame lies, in staging and in the ring.
     * @param frameLength header plus payload.
     * @param flags       {@link io.ringwire.rdma.SendFlags}.
     */
    void post(final PublicationDestination destination, final long position, final MemoryRegion staging,
        final int frameOffset, final int frameLength, final int flags)
    {
        int result;
        long giveUpNs = 0;
        while ((result = destination.postFrame(position, staging, frameOffset, frameLength, flags)) ==
            PostResult.QUEUE_FULL)
        {
            completionQueue.poll(completionHandler, 64);
            if (!destination.connected)
            {
                return; // a failed completion disconnected it, counted as an error there
            }
            final long nowNs = System.nanoTime();
            giveUpNs = giveUpNs == 0 ? nowNs + context.livenessTimeoutNs() : giveUpNs;
            if (nowNs - giveUpNs > 0)
            {
                counters.sendFailures.incrementRelease();
                disconnect(destination, "send queue stayed full for the liveness timeout");
                return;
            }
        }
        if (result != PostResult.OK)
        {
            counters.sendFailures.incrementRelease();
            disconnect(destination, "post failed: " + PostResult.name(result));
        }
    }

    /**
     * Declares connected destinations whose liveness counter has not moved for the liveness timeout
     * gone.
     *
     * @param nowNs the time now.
     * @return destinations disconnected.
     */
    int disconnectSilent(final long nowNs)
    {
        int work = 0;
        for (final PublicationDestination destination : all)
        {
            if (destination.connected && destination.isSilent(nowNs, context.livenessTimeoutNs()))
            {
                counters.livenessTimeouts.incrementRelease();
                disconnect(destination, "subscriber silent for longer than the liveness timeout");
                work++;
            }
            else if (memoryLog && destination.connected && destination.queuePairFailed())
            {
                // A memory log posts nothing after its JOIN, so no failed completion would tell. Over
                // RDMA a failed completion tells, and asking the NIC (ibv_query_qp, a system call that
                // takes the queue pair's lock in the driver) on every duty cycle would slow its
                // traffic.
                counters.errors.incrementRelease();
                disconnect(destination, "the queue pair to the subscriber failed (its process is gone)");
                work++;
            }
        }
        return work;
    }

    /**
     * Disconnects, as a slow consumer, each connected destination that has held the publication back
     * at every look for longer than the timeout (more than three quarters of its ring unread, or
     * over RDMA no posted receive or no room in its send queue for one more frame) and read less
     * than a ring meanwhile. A look at which it had room starts its time over, and so does one by
     * which it has read a whole ring since its time began: a subscriber that reads at pace is never
     * cut, however far behind a burst (a backlog drained into the stream) keeps it. It rejoins at
     * the stream's position when it reconnects, and has lost what it had not read; it is
     * reconnected after twice the reconnect interval, doubled for every cut in a row (see
     * {@link #slowCutBackoffNs}), so one that stops reading again at once cannot hold the others
     * back for the timeout every reconnect interval.
     *
     * <p>Every look also notes since when each destination has held the publication back without a
     * break, for {@link #disconnectSlowest}; with no timeout (0) that is all it does.
     *
     * @param nowNs     the time now.
     * @param position  the publication's position.
     * @param timeoutNs the channel's {@code slow-timeout}, or 0 for none.
     * @return destinations disconnected.
     */
    int disconnectSlow(final long nowNs, final long position, final long timeoutNs)
    {
        lastLookNs = nowNs;
        int work = 0;
        for (final PublicationDestination destination : all)
        {
            if (!destination.connected)
            {
                continue;
            }
            final long consumed = consumedWithin(destination, position);
            if (!holdsBack(destination, position, consumed))
            {
                destination.holdingBackSinceNs = PublicationDestination.NOT_HOLDING_BACK;
                destination.blockingSinceNs = PublicationDestination.NOT_HOLDING_BACK;
                continue;
            }
            if (destination.blockingSinceNs == PublicationDestination.NOT_HOLDING_BACK)
            {
                destination.blockingSinceNs = nowNs;
            }
            if (timeoutNs <= 0)
            {
                continue;
            }
            if (destination.holdingBackSinceNs == PublicationDestination.NOT_HOLDING_BACK ||
                consumed - destination.consumedWhenHoldingBackBegan >= ringCapacity)
            {
                destination.holdingBackSinceNs = nowNs;
                destination.consumedWhenHoldingBackBegan = consumed;
            }
            else if (nowNs - destination.holdingBackSinceNs > timeoutNs)
            {
                cutSlow(destination, nowNs, "slow subscriber: it held the publication back for longer than " +
                    "slow-timeout=" + timeoutNs / 1_000_000 + " ms");
                work++;
            }
        }
        return work;
    }

    /**
     * Cuts the connected destination that has held the publication back the longest without a
     * break, from the first look of the duty cycle that saw it until the last (see
     * {@link #disconnectSlow}), for at least {@link #MIN_BLOCKING_NS}, as a slow one but without
     * its timeout: for an owner whose own demand outruns the slowest reader, which a subscriber
     * reading a ring per timeout never shows. A reader keeping up is behind only for a moment (a
     * burst), and so spared; when every one of several destinations qualifies, none stands out (the
     * publication's own pace, or its transport's, may hold them all) and none is cut, unless the
     * owner says it can wait for none of them. One at most per call.
     *
     * @param evenIfAllHoldBack cut the one holding back the longest also when every one qualifies.
     * @return destinations disconnected: 0 or 1.
     */
    int disconnectSlowest(final boolean evenIfAllHoldBack)
    {
        PublicationDestination slowest = null;
        int connected = 0;
        int qualifying = 0;
        for (final PublicationDestination destination : all)
        {
            if (!destination.connected)
            {
                continue;
            }
            connected++;
            if (destination.blockingSinceNs != PublicationDestination.NOT_HOLDING_BACK &&
                lastLookNs - destination.blockingSinceNs >= MIN_BLOCKING_NS)
            {
                qualifying++;
                if (null == slowest || destination.blockingSinceNs < slowest.blockingSinceNs)
                {
                    slowest = destination;
                }
            }
        }
        if (null == slowest || (connected > 1 && qualifying == connected && !evenIfAllHoldBack))
        {
            return 0;
        }
        cutSlow(slowest, System.nanoTime(), "slow subscriber: it held the publication back without a break for " +
            (lastLookNs - slowest.blockingSinceNs) / 1_000_000 + " ms when its owner could wait no longer");
        return 1;
    }

    private void cutSlow(final PublicationDestination destination, final long nowNs, final String reason)
    {
        // A subscriber that stops reading again as soon as it is back would hold the others back
        // for the timeout every reconnect interval: each cut in a row doubles its wait before the
        // next attempt, and a subscriber that reads at pace long enough starts over.
        destination.slowCuts = nowNs - destination.joinedNs > SLOW_CUTS_FORGOTTEN_NS ? 1 :
            Math.min(destination.slowCuts + 1, 16);
        destination.reconnectNotBeforeNs = nowNs + slowCutBackoffNs(context.reconnectIntervalNs(),
            destination.slowCuts);
        counters.slowSubscribers.incrementRelease();
        disconnect(destination, reason);
        destination.closeQueuePair();
    }

    /**
     * @param reconnectIntervalNs the context's reconnect interval.
     * @param slowCuts            slow-consumer cuts in a row, from 1.
     * @return how long after the cut the destination waits before it is connected again: the
     *         reconnect interval doubled with each cut in a row, at most {@link #MAX_SLOW_BACKOFF_NS}.
     */
    static long slowCutBackoffNs(final long reconnectIntervalNs, final int slowCuts)
    {
        final int doublings = Math.min(slowCuts, 30);
        return reconnectIntervalNs > MAX_SLOW_BACKOFF_NS >> doublings ? Math.max(MAX_SLOW_BACKOFF_NS,
            reconnectIntervalNs) : reconnectIntervalNs << doublings;
    }

    /**
     * A subscriber writes its consumed position itself: none honest is past the publication's, or
     * more than a ring behind it (the publication never writes further ahead). Held within those
     * bounds, a written Long.MIN_VALUE holds the publication back as a subscriber that stopped reading
     * does, one past the position counts as all read, and no difference taken from it overflows.
     */
    private long consumedWithin(final PublicationDestination destination, final long position)
    {
        return Math.max(Math.min(destination.consumedPosition(), position), position - ringCapacity);
    }

    private boolean holdsBack(final PublicationDestination destination, final long position, final long consumed)
    {
        return position - consumed > ringCapacity - (ringCapacity >> 2) ||
            (!memoryLog && (destination.receiveHeadroom() <= 0 ||
            !destination.queuePair.canPostSends(1, FrameDescriptor.HEADER_LENGTH)));
    }

    /**
     * Disconnects a connected destination (it is reconnected later); nothing when it is not
     * connected.
     *
     * @param destination one of {@link #all}.
     * @param reason      what {@link #lastConnectionError()} reports.
     */
    void disconnect(final PublicationDestination destination, final String reason)
    {
        if (destination.connected)
        {
            destination.disconnect(reason);
            connectedCount--;
            counters.disconnects.incrementRelease();
            // Rare, and what an operator needs to know: which subscriber, why. Frames it had not
            // acknowledged do not reach it; it rejoins at the stream's position on reconnection.
            LOG.log(System.Logger.Level.WARNING, "publication stream=" + streamId + " session=" + sessionId +
                " lost the subscriber at " + destination.endpoint + ": " + reason);
            onConnectionChange.run();
        }
    }

    /**
     * @return why the last connection attempt of the first disconnected subscriber failed, or null.
     */
    String lastConnectionError()
    {
        for (final PublicationDestination destination : all)
        {
            if (!destination.connected && null != destination.lastError)
            {
                return destination.endpoint + ": " + destination.lastError;
            }
        }
        return null;
    }

    private boolean anyConnecting()
    {
        for (final PublicationDestination destination : all)
        {
            if (destination.isConnecting())
            {
                return true;
            }
        }
        return false;
    }

    private void onCompletion(final long workRequestId, final int opcode, final int status, final int byteLength,
        final int immediate, final int queuePairNumber)
    {
        if (status == CompletionStatus.SUCCESS)
        {
            return;
        }
        for (final PublicationDestination destination : all)
        {
            if (destination.connected && destination.queuePair.queuePairNumber() == queuePairNumber)
            {
                counters.errors.incrementRelease();
                disconnect(destination, "completion " + CompletionStatus.name(status));
            }
        }
    }

    /** @return connected destinations of all, and why the first disconnected one is, if any is. */
    @Override
    public String toString()
    {
        return connectedCount + "/" + all.length + (allConnected() ? "" : ", lastError=" + lastConnectionError());
    }

    /** Closes every destination: its queue pair, any attempt under way, its regions. */
    @Override
    public void close()
    {
        for (final PublicationDestination destination : all)
        {
            CloseHelper.quietClose(destination);
        }
    }
}
