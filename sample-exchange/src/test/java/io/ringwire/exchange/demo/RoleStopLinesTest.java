package io.ringwire.exchange.demo;

import io.ringwire.exchange.node.RunFlag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A role's stop lines stop its run flag with its stop latch: the flag bounds the waits a role makes
 * before its agents run (the engine's recovery, for a gateway that takes nothing), which the latch
 * alone does not end.
 */
class RoleStopLinesTest
{
    @Test
    void aStopLineStopsTheRunAndExits()
    {
        final CountDownLatch stop = new CountDownLatch(1);
        final CountDownLatch exit = new CountDownLatch(1);
        final RunFlag running = new RunFlag();

        RoleMain.awaitStopLines(input("hello\nstop\n"), stop, exit, running, false);

        assertEquals(0, stop.getCount());
        assertEquals(0, exit.getCount());
        assertFalse(running.isRunning(), "the run flag stops with the role");
    }

    @Test
    void aQuiesceLineStopsTheRunButDoesNotExit()
    {
        final CountDownLatch stop = new CountDownLatch(1);
        final CountDownLatch exit = new CountDownLatch(1);
        final RunFlag running = new RunFlag();

        RoleMain.awaitStopLines(input("quiesce\n"), stop, exit, running, false);

        assertEquals(0, stop.getCount());
        assertEquals(1, exit.getCount(), "quiesce keeps the sessions up until stop");
        assertFalse(running.isRunning());
    }

    @Test
    void theEndOfAParentsPipeStopsTheRunAndOtherwiseChangesNothing()
    {
        final RunFlag piped = new RunFlag();
        final CountDownLatch pipedStop = new CountDownLatch(1);
        RoleMain.awaitStopLines(input(""), pipedStop, new CountDownLatch(1), piped, true);
        assertFalse(piped.isRunning(), "the parent is gone");
        assertEquals(0, pipedStop.getCount());

        final RunFlag terminal = new RunFlag();
        final CountDownLatch terminalStop = new CountDownLatch(1);
        RoleMain.awaitStopLines(input(""), terminalStop, new CountDownLatch(1), terminal, false);
        assertTrue(terminal.isRunning(), "a terminal's end is no stop: SIGTERM or a stop line is");
        assertEquals(1, terminalStop.getCount());
    }

    private static ByteArrayInputStream input(final String text)
    {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }
}
