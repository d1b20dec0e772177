package io.ringwire.rdma.shm;

import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.host.RegularFiles;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shm provider's files: memory no process can shrink under a peer's mapping, and a peer's file
 * mapped only when it is such memory.
 */
final class ShmFilesTest
{
    private static final int LENGTH = 8192;

    @TempDir
    Path directory;

    @Test
    void aCreatedFileIsMemoryThatNoOpenerCanShrinkWhileAPeerMapsIt() throws Exception
    {
        final Path file = directory.resolve("1-1-mr-1.shm");
        final MappedByteBuffer own = ShmFiles.createAndMap(file, LENGTH);
        final MappedByteBuffer peer = ShmFiles.mapExisting(file, LENGTH);
        try
        {
            assertTrue(Files.isSymbolicLink(file), "named by a link to the creator's descriptor");
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
            {
                assertThrows(IOException.class, () -> channel.truncate(LENGTH / 2));
                assertThrows(IOException.class, () -> channel.truncate(0));
                assertEquals(LENGTH, channel.size());
            }
            new UnsafeBuffer(peer).putLong(LENGTH - Long.BYTES, 0x1234_5678_9ABC_DEF0L);
            assertEquals(0x1234_5678_9ABC_DEF0L, new UnsafeBuffer(own).getLong(LENGTH - Long.BYTES),
                "the peer's store lands in the creator's memory, at the last bytes too");
            assertThrows(RdmaException.class, () -> ShmFiles.createAndMap(file, LENGTH), "an existing name is refused");
            assertFalse(ShmFiles.deleteIfNotCreatedHere(file), "the refusal leaves the live name this process's");
            assertTrue(Files.isSymbolicLink(file));
        }
        finally
        {
            ShmFiles.unmap(peer);
            ShmFiles.unmap(own);
            ShmFiles.deleteQuietly(file);
        }
    }

    @Test
    void aSweepRacingThisProcessMakingAndDeletingItsNamesNeverTakesALiveNameOrItsDescriptor() throws Exception
    {
        final long pid = ProcessHandle.current().pid();
        final Path file = directory.resolve(ShmFiles.controlFileName(pid, 999_999));
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicReference<Throwable> sweepFailed = new AtomicReference<>();
        final AtomicLong sweeps = new AtomicLong();
        // Another thread's device open: it sweeps the directory, where every name of this pid that
        // this process does not hold counts as a dead predecessor's.
        final Thread sweeper = new Thread(() ->
        {
            try
            {
                while (running.get())
                {
                    ShmStaleFiles.sweep(directory, pid);
                    sweeps.incrementAndGet();
                }
            }
            catch (final Throwable ex)
            {
                sweepFailed.set(ex);
            }
        }, "sweeper");
        sweeper.start();
        int made = 0;
        try
        {
            final long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            while (System.nanoTime() - end < 0)
            {
                final MappedByteBuffer own = ShmFiles.createAndMap(file, LENGTH);
                try
                {
                    final Path descriptor = Files.readSymbolicLink(file);
                    assertTrue(Files.readSymbolicLink(descriptor).toString().startsWith("/memfd:" + file.getFileName()),
                        "the name leads to the file made under it, its descriptor open");
                    final MappedByteBuffer peer = ShmFiles.mapExisting(file, LENGTH);
                    new UnsafeBuffer(peer).putLong(0, made);
                    ShmFiles.unmap(peer);
                    assertEquals(made, new UnsafeBuffer(own).getLong(0));
                }
                finally
                {
                    ShmFiles.unmap(own);
                }
                assertTrue(ShmFiles.deleteQuietly(file), "the name was still there for its maker to delete");
                made++;
            }
        }
        finally
        {
            running.set(false);
            sweeper.join();
        }
        assertNull(sweepFailed.get(), "the sweeper ran throughout");
        assertTrue(sweeps.get() > 100 && made > 100, sweeps.get() + " sweeps, " + made + " names made");
    }

    @Test
    void aFileThatCouldBeShrunkIsRefusedBeforeItIsMappedThroughALinkOrNot() throws Exception
    {
        final Path plain = Files.write(directory.resolve("2-1-mr-1.shm"), new byte[LENGTH]);
        final SealedFiles.UnsealedFileException refused =
            assertThrows(SealedFiles.UnsealedFileException.class, () -> ShmFiles.mapExisting(plain, LENGTH));
        assertTrue(refused.getMessage().contains("F_SEAL_SHRINK"), refused.getMessage());

        final Path link = Files.createSymbolicLink(directory.resolve("2-1-qp-1.ring"), plain);
        assertThrows(SealedFiles.UnsealedFileException.class, () -> ShmFiles.mapExistingRange(link, 64));
        assertThrows(NoSuchFileException.class, () -> ShmFiles.mapExisting(directory.resolve("2-1.ctl"), 64),
            "a missing file");
        final Path dangling = Files.createSymbolicLink(directory.resolve("2-2.ctl"), Path.of("/proc/self/fd/999999"));
        assertThrows(NoSuchFileException.class, () -> ShmFiles.mapExisting(dangling, 64),
            "a link whose process no longer holds the descriptor");
    }

    @Test
    void aFileIsReadForItsHeaderWhateverItsSealsButOnlyWhenItIsARegularFile() throws Exception
    {
        final Path plain = Files.write(directory.resolve("4-1.ctl"), new byte[] {1, 2, 3, 4});
        try (FileChannel channel = ShmFiles.openForReading(plain))
        {
            assertEquals(4, channel.size());
        }
        final Path fifo = directory.resolve("4-2.ctl");
        Assumptions.assumeTrue(mkfifo(fifo), "needs mkfifo");
        final IOException refused = assertThrows(RegularFiles.NotRegularFileException.class,
            () -> ShmFiles.openForReading(fifo),
            "a FIFO, with no writer, is refused rather than waited on");
        assertTrue(refused.getMessage().contains("not a regular file"), refused.getMessage());
    }

    @Test
    void deletingACreatedFileClosesTheDescriptorThatHeldItsMemory() throws Exception
    {
        final Path file = directory.resolve("3-1-qp-7.ring");
        final MappedByteBuffer own = ShmFiles.createAndMap(file, LENGTH);
        try
        {
            final Path descriptor = Files.readSymbolicLink(file);
            final String fd = descriptor.getFileName().toString();
            final Path ownDescriptor = Path.of("/proc/self/fd", fd);
            assertTrue(Files.readSymbolicLink(ownDescriptor).toString().startsWith("/memfd:3-1-qp-7.ring"),
                Files.readSymbolicLink(ownDescriptor).toString());

            assertTrue(ShmFiles.deleteQuietly(file));
            assertFalse(Files.exists(file, LinkOption.NOFOLLOW_LINKS));
            assertFalse(Files.exists(ownDescriptor, LinkOption.NOFOLLOW_LINKS) &&
                Files.readSymbolicLink(ownDescriptor).toString().startsWith("/memfd:3-1-qp-7.ring"),
                "the descriptor is closed");
            new UnsafeBuffer(own).putLong(0, 1L); // the mapping outlives the name and the descriptor
        }
        finally
        {
            ShmFiles.unmap(own);
        }
    }

    private static boolean mkfifo(final Path fifo) throws InterruptedException
    {
        try
        {
            return new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }
}
