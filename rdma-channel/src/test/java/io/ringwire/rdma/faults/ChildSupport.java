package io.ringwire.rdma.faults;

import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.cm.ConnectionManagerConfig;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What the lab's child JVMs ({@link StreamReceiver}, {@link StreamSender}, {@link UdpFaultProbe})
 * share: {@code key=value} arguments, a watchdog that bounds the process's life, and the device and
 * connection manager configurations. Each child prints protocol lines on stdout that the test reads
 * ({@link LabProcess}); the first word of a line says what it is.
 */
final class ChildSupport
{
    /** Exit status of a child whose watchdog fired. */
    static final int WATCHDOG_EXIT = 97;

    /** What the watchdog prints before it halts the JVM: set by the child once it has state worth seeing. */
    private static volatile Supplier<String> diagnostics = () -> "(no diagnostics)";

    private ChildSupport()
    {
    }

    static Map<String, String> arguments(final String[] args)
    {
        final Map<String, String> values = new HashMap<>();
        for (final String arg : args)
        {
            final int eq = arg.indexOf('=');
            if (eq <= 0)
            {
                throw new IllegalArgumentException("expected key=value, got '" + arg + "'");
            }
            values.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        return values;
    }

    static String required(final Map<String, String> args, final String key)
    {
        final String value = args.get(key);
        if (null == value)
        {
            throw new IllegalArgumentException("missing argument " + key + "=...; got " + args);
        }
        return value;
    }

    /**
     * Halts the JVM after {@code lifetimeMs}, whatever it is doing, so that a hung child never
     * outlives its test even when nobody kills it.
     */
    static void startWatchdog(final String name, final long lifetimeMs)
    {
        Thread.ofPlatform().daemon().name(name + "-watchdog").start(() ->
        {
            try
            {
                TimeUnit.MILLISECONDS.sleep(lifetimeMs);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            System.out.println("WATCHDOG " + name + " exceeded its lifetime of " + lifetimeMs + " ms; halting; " +
                diagnostics.get());
            System.out.flush();
            Runtime.getRuntime().halt(WATCHDOG_EXIT);
        });
    }

    /**
     * @param supplier what the watchdog prints if it fires; called on the watchdog thread, so it
     *                 must only read state that is safe to read from another thread.
     */
    static void diagnostics(final Supplier<String> supplier)
    {
        diagnostics = supplier;
    }

    /**
     * The device configuration of both stream ends: the data path bound to the lab address, a peer
     * timeout long enough to ride out the blackout, and retries until that timeout.
     */
    static RdmaConfig deviceConfig(final Map<String, String> args)
    {
        return new RdmaConfig()
            .provider(required(args, "provider"))
            .bindAddress(required(args, "bind"))
            .peerTimeoutMs(Long.parseLong(required(args, "peerTimeoutMs")))
            .retryCount(7)
            .rnrRetryCount(7)
            .conclude();
    }

    static ConnectionManagerConfig connectionManagerConfig(final Map<String, String> args)
    {
        return new ConnectionManagerConfig()
            .secret(required(args, "secret").getBytes(StandardCharsets.UTF_8))
            .timeoutMs(10_000)
            .conclude();
    }

    /** What both ends must agree on, sent by the sender as the connection's application data. */
    static String streamDescription(final Map<String, String> args)
    {
        return "messages=" + required(args, "messages") + " seed=" + required(args, "seed");
    }
}
