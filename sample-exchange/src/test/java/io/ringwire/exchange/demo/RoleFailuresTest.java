package io.ringwire.exchange.demo;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A role whose agent (or a close) threw exits 1 whatever its own checks said, and says what was thrown. */
class RoleFailuresTest
{
    @Test
    void anAgentsFailureIsPrintedAndMakesTheExitCodeOne()
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final RoleFailures failures = new RoleFailures(new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, failures.exitCode(0), "nothing failed");
        assertEquals(2, failures.exitCode(2), "the role's own code stands while nothing failed");

        failures.onError(new IllegalStateException("duty cycle broke"));

        assertEquals(1, failures.count());
        assertEquals(1, failures.exitCode(0));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("duty cycle broke"), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aCloseThatThrowsFailsTheRoleAndTheClosesBeforeItStillRun()
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final RoleFailures failures = new RoleFailures(new PrintStream(err, true, StandardCharsets.UTF_8));
        final List<String> closed = new ArrayList<>();
        RoleMain.closeAll(List.of(() -> closed.add("first opened"), () ->
        {
            throw new IllegalStateException("a helper of the engine failed as it stopped");
        }, () -> closed.add("last opened")), failures);

        assertEquals(List.of("last opened", "first opened"), closed, "last opened first, past the one that threw");
        assertEquals(1, failures.exitCode(0));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("failed as it stopped"),
            err.toString(StandardCharsets.UTF_8));
    }
}
