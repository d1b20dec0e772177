package io.ringwire.messaging.status;

import io.ringwire.messaging.FragmentAssembler;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import io.ringwire.rdma.host.ProcessIdentity;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.ringwire.messaging.PubSubTestSupport.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The counters file is what {@code ringwire stat} shows: live values of this process's
 * publications and subscriptions, and nothing of dead processes.
 */
class RingWireStatTest
{
    @TempDir
    Path directory;

    private static long value(final String report, final String label)
    {
        final Matcher matcher = Pattern.compile("\\s+\\d+\\s+([\\d,]+)\\s+.*" + Pattern.quote(label)).matcher(report);
        assertTrue(matcher.find(), "no counter '" + label + "' in:\n" + report);
        return Long.parseLong(matcher.group(1).replace(",", ""));
    }

    private static String report(final MessagingContext context)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try
        {
            RingWireStat.print(context.countersDirectory(), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        }
        catch (final java.io.IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void statShowsTheLiveCountersOfThisProcess() throws Exception
    {
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel("shm", 0), 3);
             Publication publication = Publication.open(context, channel("shm", subscription.endpoint().getPort()), 3))
        {
            await(publication::isConnected, Duration.ofSeconds(10), "connection", () ->
            {
                subscription.poll((b, o, l, h) -> { }, 10);
                publication.doWork();
            });
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(100));
            final int[] received = { 0 };
            for (int sent = 0; sent < 500; )
            {
                if (publication.offer(message, 0, 100) > 0)
                {
                    sent++;
                }
                subscription.poll((b, o, l, h) -> received[0]++, 10);
            }
            await(() -> received[0] == 500, Duration.ofSeconds(10), "delivery",
                () -> subscription.poll((b, o, l, h) -> received[0]++, 10));
            // One message of three fragments: three fragments, one message.
            final int large = 2 * publication.maxPayloadLength() + 1000;
            final UnsafeBuffer largeMessage = new UnsafeBuffer(ByteBuffer.allocateDirect(large));
            await(() -> publication.offer(largeMessage, 0, large) > 0, Duration.ofSeconds(10), "the large offer",
                () -> subscription.poll((b, o, l, h) -> { }, 10));
            final int[] assembled = { 0 };
            final FragmentAssembler assembler = new FragmentAssembler((b, o, l, h) -> assembled[0] += l == large ? 1 : 100);
            await(() -> assembled[0] == 1, Duration.ofSeconds(10), "the large message", () -> subscription.poll(assembler, 10));

            // Counts reach the counters file at each end's duty cycle, which runs while the owner polls.
            final String sentLabel = "pub stream=3 shm 127.0.0.1:" + subscription.endpoint().getPort() + ": messages sent";
            final String receivedLabel = "sub stream=3 shm 127.0.0.1:0: messages received";
            await(() -> value(report(context), sentLabel) == 501 && value(report(context), receivedLabel) == 501,
                Duration.ofSeconds(10), "the duty cycles' counter updates", () ->
                {
                    subscription.poll((b, o, l, h) -> { }, 10);
                    publication.doWork();
                });
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            assertEquals(1, RingWireStat.print(context.countersDirectory(), new PrintStream(bytes, true, StandardCharsets.UTF_8)));
            final String report = bytes.toString(StandardCharsets.UTF_8);
            assertTrue(report.contains("process " + ProcessHandle.current().pid()), report);
            assertEquals(501, value(report, "pub stream=3 shm 127.0.0.1:" + subscription.endpoint().getPort() + ": messages sent"));
            assertEquals(50_000 + large, value(report, ": bytes sent"));
            assertEquals(501, value(report, "sub stream=3 shm 127.0.0.1:0: messages received"));
            assertEquals(503, value(report, "sub stream=3 shm 127.0.0.1:0: fragments received"));
            assertEquals(50_000 + large, value(report, ": bytes received"));
            assertEquals(1, value(report, "images opened"));
        }
        final ByteArrayOutputStream after = new ByteArrayOutputStream();
        RingWireStat.print(context.countersDirectory(), new PrintStream(after, true, StandardCharsets.UTF_8));
        assertTrue(after.toString(StandardCharsets.UTF_8).contains("no running RingWire process"),
            "closing the last publication and subscription removes the file");
    }

    @Test
    void anOptionGivenTwiceIsRefusedNotSettledByTheLast()
    {
        final Path home = Path.of("counters");
        final IllegalArgumentException dir = assertThrows(IllegalArgumentException.class,
            () -> RingWireStat.parse(new String[]{ "--dir", "a", "--dir", "b" }, home));
        assertEquals("--dir is given twice", dir.getMessage());
        final IllegalArgumentException count = assertThrows(IllegalArgumentException.class,
            () -> RingWireStat.parse(new String[]{ "--count", "3", "--once" }, home));
        assertEquals("--count and --once are given together", count.getMessage());

        final RingWireStat.Options once = RingWireStat.parse(new String[]{ "--once", "--interval", "5" }, home);
        assertEquals(new RingWireStat.Options(home, 5, 1), once);
        assertEquals(Path.of("d"), RingWireStat.parse(new String[]{ "--dir", "d" }, home).directory());
        assertNull(RingWireStat.parse(new String[]{ "--help" }, home));
    }

    @Test
    void statIgnoresFilesOfDeadProcesses() throws Exception
    {
        final Path counters = directory.resolve("counters");
        Files.createDirectories(counters);
        Files.write(counters.resolve("999999999" + CountersFile.SUFFIX), new byte[4096]);
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertEquals(0, RingWireStat.print(counters, new PrintStream(bytes, true, StandardCharsets.UTF_8)));
        assertFalse(bytes.toString(StandardCharsets.UTF_8).contains("process 999999999"));
    }

    @Test
    void aFileOfAProcessThatDiedAndWhosePidWasGivenAgainIsNotShownAndIsRemovedByTheNextProcess() throws Exception
    {
        Assumptions.assumeTrue(ProcessIdentity.startTime(ProcessHandle.current().pid()) !=
            ProcessIdentity.UNKNOWN_START_TIME, "needs /proc");
        final Path counters = directory.resolve("reused");
        Files.createDirectories(counters);
        final Process other = new ProcessBuilder("sleep", "60").start();
        try
        {
            // The pid is alive, but its process started at another time than the file's writer.
            final long otherStart = ProcessIdentity.startTime(other.pid());
            final UnsafeBuffer stale = oneCounter(other.pid());
            stale.putLong(CountersFile.OWNER_START_TICKS_OFFSET, otherStart - 1);
            final Path staleFile = counters.resolve(other.pid() + CountersFile.SUFFIX);
            Files.write(staleFile, stale.byteArray());
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            assertEquals(0, RingWireStat.print(counters, new PrintStream(bytes, true, StandardCharsets.UTF_8)));
            assertFalse(bytes.toString(StandardCharsets.UTF_8).contains("process " + other.pid()),
                bytes.toString(StandardCharsets.UTF_8));

            // Written by it: its own, and shown.
            final UnsafeBuffer own = oneCounter(other.pid());
            own.putLong(CountersFile.OWNER_START_TICKS_OFFSET, otherStart);
            Files.write(staleFile, own.byteArray());
            assertEquals(1, RingWireStat.print(counters, new PrintStream(OutputStream.nullOutputStream())));

            Files.write(staleFile, stale.byteArray());
            CountersFile.release(CountersFile.acquire(counters));
            assertFalse(Files.exists(staleFile), "the next process to use the directory removes it");
        }
        finally
        {
            other.destroyForcibly().waitFor();
        }
    }

    @Test
    void aCountersFileOfAnotherLayoutVersionIsNamedAsSuchAndNotRead() throws Exception
    {
        final Path counters = directory.resolve("versions");
        Files.createDirectories(counters);
        final UnsafeBuffer later = oneCounter(ProcessHandle.current().pid());
        later.putInt(CountersFile.VERSION_OFFSET, CountersFile.VERSION + 1);
        Files.write(counters.resolve("1" + CountersFile.SUFFIX), later.byteArray());
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertEquals(0, RingWireStat.print(counters, new PrintStream(bytes, true, StandardCharsets.UTF_8)));
        final String report = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(report.contains("a counters file of layout version " + (CountersFile.VERSION + 1) +
            "; this stat reads version " + CountersFile.VERSION), report);
        assertFalse(report.contains("a counter" + System.lineSeparator()), "its counter is not read: " + report);
    }

    @Test
    void oneDirectorySpelledTwoWaysIsOneCountersFile() throws Exception
    {
        final Path counters = directory.resolve("spelled");
        final CountersFile plain = CountersFile.acquire(counters);
        final CountersFile dotted = CountersFile.acquire(counters.resolve(".").resolve("..").resolve("spelled"));
        try
        {
            assertTrue(plain == dotted, "one file, not two truncating each other");
        }
        finally
        {
            CountersFile.release(dotted);
        }
        assertTrue(Files.exists(counters.resolve(ProcessHandle.current().pid() + CountersFile.SUFFIX)),
            "still held by the first");
        CountersFile.release(plain);
    }

    @Test
    void aCountersFileStatCannotReadIsNamedNotPassedOver() throws Exception
    {
        Assumptions.assumeFalse("root".equals(System.getProperty("user.name")), "root reads any file");
        final Path counters = directory.resolve("unreadable");
        Files.createDirectories(counters);
        final Path file = counters.resolve(ProcessHandle.current().pid() + CountersFile.SUFFIX);
        Files.write(file, oneCounter(ProcessHandle.current().pid()).byteArray());
        Files.setPosixFilePermissions(file, java.util.Set.of());
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertEquals(0, RingWireStat.print(counters, new PrintStream(bytes, true, StandardCharsets.UTF_8)));
        assertTrue(bytes.toString(StandardCharsets.UTF_8).contains(file + ": cannot read it"),
            bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aLiveProcesssCountersFileWhoseLengthsOrRecordsLieOutsideItIsReportedMalformedAndTheOthersStillShow()
        throws Exception
    {
        final Path counters = directory.resolve("forged");
        Files.createDirectories(counters);
        final long pid = ProcessHandle.current().pid();
        // Lengths past the file's end.
        final UnsafeBuffer lengths = header(pid, 1 << 20, 1 << 20);
        Files.write(counters.resolve("1" + CountersFile.SUFFIX), lengths.byteArray());
        // Lengths within it, but one allocated record whose label length points far outside.
        final UnsafeBuffer record = header(pid, 4096, 4096);
        final int metadata = CountersFile.HEADER_LENGTH;
        record.putInt(metadata + CountersReader.TYPE_ID_OFFSET, 1);
        record.putInt(metadata + CountersReader.LABEL_OFFSET, 1 << 24);
        record.putIntVolatile(metadata, CountersReader.RECORD_ALLOCATED);
        Files.write(counters.resolve("2" + CountersFile.SUFFIX), record.byteArray());
        // A label length below zero.
        final UnsafeBuffer negative = header(pid, 4096, 4096);
        negative.putInt(metadata + CountersReader.LABEL_OFFSET, -5);
        negative.putIntVolatile(metadata, CountersReader.RECORD_ALLOCATED);
        Files.write(counters.resolve("2a" + CountersFile.SUFFIX), negative.byteArray());
        // More records than values, and metadata that is no whole number of records.
        Files.write(counters.resolve("2b" + CountersFile.SUFFIX), header(pid, 4096, 512).byteArray());
        Files.write(counters.resolve("2c" + CountersFile.SUFFIX), header(pid, 4000, 4096).byteArray());
        // A label that would forge a line of the listing.
        final UnsafeBuffer forging = header(pid, 4096, 4096);
        final byte[] label = "ok\nprocess 1 (started".getBytes(StandardCharsets.US_ASCII);
        forging.putInt(metadata + CountersReader.LABEL_OFFSET, label.length);
        forging.putBytes(metadata + CountersReader.LABEL_OFFSET + Integer.BYTES, label);
        forging.putLong(CountersFile.HEADER_LENGTH + 4096, 42);
        forging.putIntVolatile(metadata, CountersReader.RECORD_ALLOCATED);
        Files.write(counters.resolve("2d" + CountersFile.SUFFIX), forging.byteArray());
        // A well-formed file of the same live process, with no counters, sorts after both.
        Files.write(counters.resolve("3" + CountersFile.SUFFIX), header(pid, 4096, 4096).byteArray());

        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertEquals(2, RingWireStat.print(counters, new PrintStream(bytes, true, StandardCharsets.UTF_8)));
        final String report = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(report.contains("1" + CountersFile.SUFFIX + " is malformed: its header gives 1048576 bytes"), report);
        assertTrue(report.contains("2" + CountersFile.SUFFIX + " is malformed: counter 0's label length 16777216 " +
            "is outside 0.." + CountersReader.MAX_LABEL_LENGTH), report);
        assertTrue(report.contains("2a" + CountersFile.SUFFIX + " is malformed: counter 0's label length -5"), report);
        assertTrue(report.contains("2b" + CountersFile.SUFFIX + " is malformed: its header gives 4096 bytes of " +
            "metadata and 512 of values"), report);
        assertTrue(report.contains("2c" + CountersFile.SUFFIX + " is malformed: its header gives 4000 bytes"), report);
        assertTrue(report.contains("42  ok?process 1 (started" + System.lineSeparator()), report);
        assertFalse(report.contains(System.lineSeparator() + "process 1 (started"), "no line is forged: " + report);
        assertEquals(2, report.split("process " + pid + " \\(started", -1).length - 1, report);
    }

    @Test
    void aCountersFileTruncatedAndRewrittenWhileStatReadsItNeverFaultsTheTool() throws Exception
    {
        final Path counters = directory.resolve("shrinking");
        Files.createDirectories(counters);
        final UnsafeBuffer content = oneCounter(ProcessHandle.current().pid());
        final Path file = counters.resolve("1" + CountersFile.SUFFIX);
        Files.write(file, content.byteArray());
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong cuts = new AtomicLong();
        final AtomicReference<Throwable> cutterFailed = new AtomicReference<>();
        // The file's owner, or anyone who may write it, cuts it to nothing and writes it again.
        final Thread cutter = new Thread(() ->
        {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
            {
                final ByteBuffer whole = ByteBuffer.wrap(content.byteArray());
                while (running.get())
                {
                    channel.truncate(0);
                    whole.clear();
                    channel.write(whole, 0);
                    cuts.incrementAndGet();
                }
            }
            catch (final Throwable ex)
            {
                cutterFailed.set(ex);
            }
        }, "cutter");
        cutter.start();
        int shown = 0;
        int rounds = 0;
        try
        {
            final PrintStream discard = new PrintStream(OutputStream.nullOutputStream());
            final long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            while (System.nanoTime() - end < 0)
            {
                shown += RingWireStat.print(counters, discard); // a fault would throw InternalError here
                rounds++;
            }
        }
        finally
        {
            running.set(false);
            cutter.join();
        }
        assertNull(cutterFailed.get(), "the cutter ran throughout");
        assertTrue(cuts.get() > 100, "cut " + cuts.get() + " times");
        assertTrue(shown > 0 && shown < rounds, "whole reads showed the process, cut ones did not: " + shown +
            " of " + rounds);
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertEquals(1, RingWireStat.print(counters, new PrintStream(bytes, true, StandardCharsets.UTF_8)),
            bytes.toString(StandardCharsets.UTF_8));
        assertEquals(0, value(bytes.toString(StandardCharsets.UTF_8), "a counter"));
    }

    @Test
    void aFifoSwappedInForACountersFileWhileStatReadsNeverHoldsTheTool() throws Exception
    {
        final Path counters = Files.createDirectories(directory.resolve("swapped"));
        final UnsafeBuffer content = oneCounter(ProcessHandle.current().pid());
        // Kept outside the listed directory; linked in and renamed over the counters file in turn.
        final Path regular = Files.write(directory.resolve("regular.keep"), content.byteArray());
        final Path fifo = directory.resolve("fifo.keep");
        Assumptions.assumeTrue(mkfifo(fifo), "needs mkfifo");
        final Path file = counters.resolve("1" + CountersFile.SUFFIX);
        final Path staged = counters.resolve("staged.tmp");
        Files.createLink(file, regular);
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong swaps = new AtomicLong();
        final AtomicReference<Throwable> swapperFailed = new AtomicReference<>();
        // Anyone who may write the directory swaps a FIFO in for the file, and the file back.
        final Thread swapper = new Thread(() ->
        {
            try
            {
                while (running.get())
                {
                    Files.createLink(staged, swaps.get() % 2 == 0 ? fifo : regular);
                    Files.move(staged, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                    swaps.incrementAndGet();
                }
            }
            catch (final Throwable ex)
            {
                swapperFailed.set(ex);
            }
        }, "swapper");
        swapper.setDaemon(true);
        final AtomicLong rounds = new AtomicLong();
        final AtomicLong shown = new AtomicLong();
        final AtomicReference<Throwable> statFailed = new AtomicReference<>();
        final Thread stat = new Thread(() ->
        {
            try
            {
                final PrintStream discard = new PrintStream(OutputStream.nullOutputStream());
                final long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
                while (System.nanoTime() - end < 0)
                {
                    shown.addAndGet(RingWireStat.print(counters, discard));
                    rounds.incrementAndGet();
                }
            }
            catch (final Throwable ex)
            {
                statFailed.set(ex);
            }
        }, "stat");
        stat.setDaemon(true);
        swapper.start();
        stat.start();
        stat.join(Duration.ofSeconds(10).toMillis());
        running.set(false);
        swapper.join();
        final boolean held = stat.isAlive();
        if (held)
        {
            // Its open waits for a writer: one that opens and closes lets it go (its read then ends);
            // opened to read and write, a FIFO's open never waits itself.
            FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).close();
            stat.join(Duration.ofSeconds(10).toMillis());
        }
        assertFalse(held, "stat was held in the open of a FIFO, after " + rounds.get() + " rounds");
        assertNull(statFailed.get(), "stat ran throughout");
        assertNull(swapperFailed.get(), "the swapper ran throughout");
        assertTrue(swaps.get() > 100 && rounds.get() > 100, "swapped " + swaps.get() + " times, " + rounds.get() +
            " rounds of stat");
        assertTrue(shown.get() > 0 && shown.get() < rounds.get(), "the process showed when the file was in " +
            "place, and not when the FIFO was: " + shown.get() + " of " + rounds.get());
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

    /** @return a counters file of {@code pid} holding one counter, labelled "a counter", of value 0. */
    private static UnsafeBuffer oneCounter(final long pid)
    {
        final UnsafeBuffer content = header(pid, 4096, 4096);
        final int metadata = CountersFile.HEADER_LENGTH;
        final byte[] label = "a counter".getBytes(StandardCharsets.US_ASCII);
        content.putInt(metadata + CountersReader.LABEL_OFFSET, label.length);
        content.putBytes(metadata + CountersReader.LABEL_OFFSET + Integer.BYTES, label);
        content.putIntVolatile(metadata, CountersReader.RECORD_ALLOCATED);
        return content;
    }

    private static UnsafeBuffer header(final long pid, final int metadataLength, final int valuesLength)
    {
        final UnsafeBuffer file = new UnsafeBuffer(new byte[CountersFile.HEADER_LENGTH + 8192]);
        file.putLong(CountersFile.MAGIC_OFFSET, CountersFile.MAGIC);
        file.putInt(CountersFile.VERSION_OFFSET, CountersFile.VERSION);
        file.putInt(CountersFile.PID_OFFSET, (int)pid);
        file.putLong(CountersFile.START_TIME_OFFSET, System.currentTimeMillis());
        file.putInt(CountersFile.METADATA_LENGTH_OFFSET, metadataLength);
        file.putInt(CountersFile.VALUES_LENGTH_OFFSET, valuesLength);
        return file;
    }
}
