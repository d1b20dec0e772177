package io.ringwire.rdma.doctor;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class HostTest
{
    @Test
    void aCommandsOutputIsReadWhenItFinishesInTime()
    {
        assertEquals(Optional.of("libvma.so.9 (libc6,x86-64) => /usr/lib/libvma.so.9\n"),
            Host.outputOf(List.of("sh", "-c", "echo 'libvma.so.9 (libc6,x86-64) => /usr/lib/libvma.so.9'"), 30_000));
    }

    @Test
    void aFailingCommandGivesNoOutput()
    {
        assertEquals(Optional.empty(), Host.outputOf(List.of("sh", "-c", "echo partial; exit 3"), 30_000));
        assertEquals(Optional.empty(), Host.outputOf(List.of("/nonexistent/ldconfig", "-p"), 30_000));
    }

    @Test
    void aCommandThatHangsIsStoppedAtItsTimeoutInsteadOfBlockingTheDoctor()
    {
        // The command has written part of its output and keeps its stdout open: a reader of its pipe would
        // wait the full 120 s; the doctor gives up at the timeout.
        final Optional<String> output = assertTimeoutPreemptively(Duration.ofSeconds(60),
            () -> Host.outputOf(List.of("sh", "-c", "echo partial; exec sleep 120"), 500));
        assertEquals(Optional.empty(), output);
    }
}
