package io.ringwire.exchange.fix;

import io.ringwire.exchange.book.InstrumentSpec;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.engine.EngineOutput;
import io.ringwire.exchange.engine.MatchingEngine;
import io.ringwire.exchange.gateway.Gateway;
import io.ringwire.exchange.gateway.GatewayConfig;
import io.ringwire.exchange.gateway.GatewayOutput;
import io.ringwire.exchange.gateway.RiskLimits;
import io.ringwire.exchange.gateway.SessionConfig;
import io.ringwire.exchange.node.LoopbackPorts;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * The gateway with its FIX door in front of the real matching engine, all driven by one thread as
 * the gateway's agent drives them: the door's members connect over real TCP. Two sessions:
 * MEMBER7 (session 7, account 700, password token-7) and MEMBER8 (session 8, account 800,
 * password token-8); instrument 1 trades around 1000 with tick 1.
 */
final class FixExchange implements AutoCloseable
{
    static final String MEMBER_A = "MEMBER7";
    static final String MEMBER_B = "MEMBER8";
    static final String PASSWORD_A = "token-7";
    static final String PASSWORD_B = "token-8";
    static final long ACCOUNT_A = 700;

    final int port;
    final FixDoor door;
    private final Gateway gateway;
    private final MatchingEngine engine;
    private final ArrayDeque<byte[]> toEngine = new ArrayDeque<>();
    private final ArrayDeque<byte[]> reports = new ArrayDeque<>();
    private final ArrayDeque<FutureTask<?>> tasks = new ArrayDeque<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean doorHeld;
    /** What stopped the thread, if anything did: a look waiting on it, and the close, report it. */
    private volatile Throwable failure;

    FixExchange(final Path store) throws Exception
    {
        this(store, FixDoorApplication.INBOUND_RING_BYTES);
    }

    /** An exchange whose door's inbound ring holds {@code inboundRingBytes}. */
    FixExchange(final Path store, final int inboundRingBytes) throws Exception
    {
        this(store, inboundRingBytes, FixDoor.RESEND_WINDOW, null);
    }

    /**
     * An exchange whose door answers ResendRequests from a session's last {@code resendWindow}
     * messages, over {@code keepingStores} (stores that keep the messages themselves) when not null.
     */
    FixExchange(final Path store, final int inboundRingBytes, final int resendWindow,
        final quickfix.MessageStoreFactory keepingStores) throws Exception
    {
        port = LoopbackPorts.pick();
        final List<SessionConfig> sessions = List.of(new SessionConfig(7, PASSWORD_A, ACCOUNT_A),
            new SessionConfig(8, PASSWORD_B, 800));
        final List<InstrumentSpec> instruments = List.of(new InstrumentSpec(1, 1, 1, 1, 100_000));
        final GatewayConfig config = new GatewayConfig(sessions, instruments, new long[]{ 0, 1_000 },
            new RiskLimits(1_000, 10_000_000, 500, 100), 10_000, 1_000, 100_000);
        door = new FixDoor(new InetSocketAddress("127.0.0.1", port), FixDoorTest.DOOR_COMP_ID, store,
            List.of(new FixDoor.Member(0, sessions.get(0), MEMBER_A), new FixDoor.Member(1, sessions.get(1), MEMBER_B)),
            config.maxClientOrderIdsPerSession(), 4, inboundRingBytes, resendWindow, keepingStores);
        engine = new MatchingEngine(new EngineConfig(instruments, 10_000, 100, 0), new EngineOutput()
        {
            @Override
            public void executionReport(final DirectBuffer buffer, final int offset, final int length)
            {
                reports.add(copy(buffer, offset, length));
            }

            @Override
            public void marketData(final DirectBuffer buffer, final int offset, final int length)
            {
            }
        });
        gateway = new Gateway(config, new GatewayOutput()
        {
            @Override
            public boolean toEngine(final DirectBuffer buffer, final int offset, final int length)
            {
                toEngine.add(copy(buffer, offset, length));
                return true;
            }

            @Override
            public boolean toSession(final int sessionIndex, final DirectBuffer buffer, final int offset,
                final int length)
            {
                return door.toSession(sessionIndex, buffer, offset, length);
            }

            @Override
            public void disconnect(final int transportSession)
            {
                door.disconnect(transportSession);
            }

            @Override
            public boolean keepsRepliesWhileAway(final int sessionIndex)
            {
                return door.serves(sessionIndex);
            }
        });
        door.start();
        thread = new Thread(this::run, "fix-exchange");
        thread.setDaemon(true);
        thread.start();
    }

    private static byte[] copy(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        return bytes;
    }

    private void run()
    {
        try
        {
            loop();
        }
        catch (final Throwable t)
        {
            failure = t;
        }
    }

    private void loop()
    {
        while (running)
        {
            final java.time.Instant now = java.time.Instant.now();
            final long nowNs = now.getEpochSecond() * 1_000_000_000L + now.getNano(); // the gateway's clock is epoch
            int work = doorHeld ? door.sendOwed() : door.poll(gateway, nowNs);
            byte[] request;
            while (null != (request = toEngine.poll()))
            {
                engine.apply(new UnsafeBuffer(request), 0, request.length);
                work++;
            }
            byte[] report;
            while (null != (report = reports.poll()))
            {
                gateway.onEngineMessage(new UnsafeBuffer(report), 0, report.length, nowNs);
                work++;
            }
            work += gateway.doWork(nowNs);
            synchronized (tasks)
            {
                FutureTask<?> task;
                while (null != (task = tasks.poll()))
                {
                    task.run();
                }
            }
            if (0 == work)
            {
                LockSupport.parkNanos(100_000);
            }
        }
    }

    /**
     * Whether the gateway takes the door's requests: held, it reads none (as while the engine's
     * stream is behind), so the door's inbound ring fills and the member's session thread waits.
     */
    void holdDoor(final boolean held)
    {
        doorHeld = held;
    }

    /** Runs a look at the gateway or the engine on their thread. */
    <T> T onThread(final Callable<T> look) throws Exception
    {
        final FutureTask<T> task = new FutureTask<>(look);
        synchronized (tasks)
        {
            tasks.add(task);
        }
        while (true)
        {
            try
            {
                return task.get(100, TimeUnit.MILLISECONDS);
            }
            catch (final TimeoutException e)
            {
                failed();
            }
        }
    }

    private void failed()
    {
        if (null != failure)
        {
            throw new AssertionError("the exchange's thread failed", failure);
        }
    }

    int openOrders(final int sessionIndex) throws Exception
    {
        return onThread(() -> gateway.openOrders(sessionIndex));
    }

    boolean loggedOn(final int sessionIndex) throws Exception
    {
        return onThread(() -> gateway.isLoggedOn(sessionIndex));
    }

    long liveOrders() throws Exception
    {
        return onThread(() -> (long)engine.books().orders().live());
    }

    @Override
    public void close() throws InterruptedException
    {
        running = false;
        thread.join(5_000);
        try
        {
            door.close();
        }
        finally
        {
            failed();
        }
    }
}
