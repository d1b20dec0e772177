package io.ringwire.messaging.system;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * What the child programs share: {@code key=value} arguments, result lines on stdout, and a
 * watcher of stdin that hears {@code go}, and tells the main loop to stop on {@code exit} or when the test's end of the
 * pipe closes (so a child never outlives its test).
 */
final class ChildSupport
{
    private static volatile boolean exitRequested;
    private static volatile boolean goReceived;

    private ChildSupport()
    {
    }

    /**
     * @param args {@code key=value} pairs.
     * @return them as a map.
     */
    static Map<String, String> arguments(final String[] args)
    {
        final Map<String, String> map = new HashMap<>();
        for (final String arg : args)
        {
            final int equals = arg.indexOf('=');
            if (equals <= 0)
            {
                throw new IllegalArgumentException("argument '" + arg + "' is not key=value");
            }
            map.put(arg.substring(0, equals), arg.substring(equals + 1));
        }
        return map;
    }

    static String required(final Map<String, String> arguments, final String key)
    {
        final String value = arguments.get(key);
        if (null == value)
        {
            throw new IllegalArgumentException("missing argument " + key + "=");
        }
        return value;
    }

    /**
     * @param arguments {@code idle=backoff} (default: spin, yield, then park up to 50 us, kind to
     *                  these 2-core machines) or {@code idle=yield} (spin-yield, never park).
     * @return the idle strategy of the child's main loop.
     */
    static IdleStrategy idleStrategy(final Map<String, String> arguments)
    {
        return switch (arguments.getOrDefault("idle", "backoff"))
        {
            case "backoff" -> new BackoffIdleStrategy(64, 64, 1_000, 50_000);
            case "yield" -> new YieldingIdleStrategy();
            default -> throw new IllegalArgumentException("idle=" + arguments.get("idle") + ": allowed backoff, yield");
        };
    }

    /** Starts the stdin watcher (a daemon thread). */
    static void watchStdin()
    {
        final Thread watcher = new Thread(() ->
        {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)))
            {
                String line;
                while (null != (line = reader.readLine()))
                {
                    if ("exit".equals(line.trim()))
                    {
                        break;
                    }
                    if ("go".equals(line.trim()))
                    {
                        goReceived = true;
                    }
                }
            }
            catch (final IOException ignore)
            {
                // treat like the end of input
            }
            exitRequested = true;
        }, "stdin-watcher");
        watcher.setDaemon(true);
        watcher.start();
    }

    /** @return true once the test said go. */
    static boolean goReceived()
    {
        return goReceived;
    }

    /** @return true once the test said exit or went away. */
    static boolean exitRequested()
    {
        return exitRequested;
    }

    /**
     * Prints one protocol line and flushes it.
     *
     * @param line e.g. {@code READY port=40123}.
     */
    static void say(final String line)
    {
        System.out.println(line);
        System.out.flush();
    }
}
