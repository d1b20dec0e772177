package io.ringwire.rdma.faults;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.SendFlags;
import io.ringwire.rdma.cm.Connection;
import io.ringwire.rdma.cm.ConnectionManager;
import io.ringwire.rdma.cm.RegionAdvertisement;
import org.agrona.concurrent.AtomicBuffer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import static io.ringwire.rdma.faults.ChildSupport.required;

/**
 * The sending end of the fault test, run in namespace a of the lab: connects to the receiver's
 * connection listener advertising a credit region, waits for {@code GO} on stdin (the test turns the
 * faults on in between), then sends the seeded stream as SIGNALED RDMA WRITE WITH IMMEDIATE
 * (immediate = sequence number) into the receiver's ring, laid out as {@link StreamPlan} says. Ring
 * space is reused only when the receiver's credit says it consumed the message there and this side
 * has the message's completion (a provider may re-read the source for a retransmission until then).
 *
 * <p>Output lines: {@code CONNECTED ...}, {@code DONE ...} or {@code FAIL reason}; after DONE it stays
 * connected until {@code EXIT} on stdin, then prints {@code EXITING} and {@code COUNTERS side=sender
 * ...}. Exit status 0 only after DONE and EXIT.
 *
 * <p>Arguments ({@code key=value}): provider, bind (data path ip:port), connect (listener ip:port),
 * messages, seed, secret, peerTimeoutMs, lifetimeMs.
 */
public final class StreamSender
{
    private static final int SEND_DEPTH = 128;
    private static final long CREDIT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    private static final long COMMAND_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);

    private StreamSender()
    {
    }

    public static void main(final String[] argv) throws Exception
    {
        final Map<String, String> args = ChildSupport.arguments(argv);
        ChildSupport.startWatchdog("sender", Long.parseLong(required(args, "lifetimeMs")));
        final int messages = Integer.parseInt(required(args, "messages"));
        final long seed = Long.parseLong(required(args, "seed"));
        final String[] listener = required(args, "connect").split(":");

        try (Device device = RdmaProviders.open(ChildSupport.deviceConfig(args)))
        {
            final ProtectionDomain domain = device.allocateProtectionDomain();
            final MemoryRegion staging = domain.allocateRegion(StreamPlan.RING_LENGTH, Access.LOCAL_WRITE);
            final MemoryRegion credit = domain.allocateRegion(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            final CompletionQueue completions = device.createCompletionQueue(4 * SEND_DEPTH);
            final QueuePair queuePair = domain.createQueuePair(
                new QueuePairConfig(completions, completions, SEND_DEPTH, 1, Math.min(device.maxInlineData(), 64)));
            queuePair.modifyToInit();
            final Connection connection = ConnectionManager.connect(
                new InetSocketAddress(listener[0], Integer.parseInt(listener[1])), queuePair,
                List.of(RegionAdvertisement.of(credit)),
                ChildSupport.streamDescription(args).getBytes(StandardCharsets.US_ASCII),
                ChildSupport.connectionManagerConfig(args));
            System.out.println("CONNECTED " + connection + " device=" + device.address());
            System.out.flush();

            final BlockingQueue<String> stdin = stdinLines();
            final String go = awaitCommand(stdin, completions, "GO");
            if (!"GO".equals(go))
            {
                finish(device, "FAIL expected GO on stdin, got " + go, 1);
                return;
            }
            final Streamer streamer = new Streamer(queuePair, staging, credit.buffer(),
                connection.remoteRegions().getFirst(), messages, seed);
            ChildSupport.diagnostics(() -> streamer.state() + " " + StreamPlan.countersLine("sender", device));
            final long startNs = System.nanoTime();
            final String failure = streamer.run(completions);
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            if (null != failure)
            {
                finish(device, "FAIL " + failure, 1);
                return;
            }
            System.out.println("DONE messages=" + messages + " bytes=" + streamer.bytes + " elapsedMs=" + elapsedMs +
                " queueFullRetries=" + streamer.queueFullRetries + " creditStalls=" + streamer.creditStalls);
            System.out.flush();
            // Stay connected until the receiver has checked that nothing more arrives: leaving now
            // would flush its receives.
            final String exit = awaitCommand(stdin, completions, "EXIT");
            finish(device, "EXIT".equals(exit) ? "EXITING" : "FAIL expected EXIT on stdin, got " + exit,
                "EXIT".equals(exit) ? 0 : 1);
        }
        catch (final Exception ex)
        {
            System.out.println("FAIL " + ex);
            ex.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
        }
    }

    /**
     * Waits for {@code expected} on stdin while this thread keeps polling, so the provider makes
     * progress meanwhile (adopts the peer's data connection before GO, keeps acknowledging after DONE).
     *
     * @return the line read, or a description of what happened instead.
     */
    private static String awaitCommand(final BlockingQueue<String> stdin, final CompletionQueue completions,
        final String expected) throws InterruptedException
    {
        final CompletionHandler unexpected = (id, opcode, status, length, imm, qpn) ->
            System.out.println("WARNING completion while waiting for " + expected + ": " + CompletionOpcode.name(opcode) +
                " " + CompletionStatus.name(status));
        final long deadline = System.nanoTime() + COMMAND_TIMEOUT_NS;
        while (System.nanoTime() < deadline)
        {
            final String line = stdin.poll();
            if (null != line)
            {
                return line;
            }
            if (completions.poll(unexpected, 16) == 0)
            {
                Thread.sleep(1);
            }
        }
        return "(no " + expected + " within " + TimeUnit.NANOSECONDS.toSeconds(COMMAND_TIMEOUT_NS) + " s)";
    }

    /**
     * @return the lines of stdin as they arrive ("(end of input)" when it closes), read on a daemon thread.
     */
    private static BlockingQueue<String> stdinLines()
    {
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.ofPlatform().daemon().name("sender-stdin").start(() ->
        {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII)))
            {
                String line;
                while ((line = in.readLine()) != null)
                {
                    lines.add(line);
                }
            }
            catch (final IOException ex)
            {
                lines.add("(stdin failed: " + ex + ")");
            }
            lines.add("(end of input)");
        });
        return lines;
    }

    private static void finish(final Device device, final String line, final int status)
    {
        System.out.println(line);
        System.out.println(StreamPlan.countersLine("sender", device));
        System.out.flush();
        if (status != 0)
        {
            System.exit(status);
        }
    }

    /**
     * Fills staging, posts, polls and follows credit. Owning thread only.
     */
    private static final class Streamer implements CompletionHandler
    {
        private final QueuePair queuePair;
        private final MemoryRegion staging;
        private final AtomicBuffer credit;
        private final RegionAdvertisement ring;
        private final int messages;
        private final long seed;
        private final int[] lengths;
        /** End position of message i, at index i % MAX_IN_FLIGHT, until its space is free again. */
        private final long[] endPositions = new long[StreamPlan.MAX_IN_FLIGHT];
        private final byte[] payload = new byte[StreamPlan.MAX_MESSAGE_LENGTH];
        private final CRC32 crc = new CRC32();

        long bytes;
        long queueFullRetries;
        long creditStalls;
        // Volatile only for the watchdog's diagnostics; written by the owning thread alone.
        private volatile long posted;
        private volatile long completed;
        private volatile long consumed;
        private long endOfPrevious;
        private long preparedSequence = -1;
        private long preparedPosition;
        private long creditWaitStartNs;
        private String failure;

        Streamer(final QueuePair queuePair, final MemoryRegion staging, final AtomicBuffer credit,
            final RegionAdvertisement ring, final int messages, final long seed)
        {
            this.queuePair = queuePair;
            this.staging = staging;
            this.credit = credit;
            this.ring = ring;
            this.messages = messages;
            this.seed = seed;
            this.lengths = StreamPlan.messageLengths(seed, messages);
        }

        String run(final CompletionQueue completions)
        {
            while (null == failure && (completed < messages || consumed < messages))
            {
                completions.poll(this, 64);
                final long credited = StreamPlan.readCredit(credit);
                if (credited > consumed)
                {
                    consumed = credited;
                }
                if (posted < messages)
                {
                    offerNext();
                }
                else if (completed == messages && waitedTooLongForCredit())
                {
                    return "all " + messages + " writes completed but the receiver credited only " + consumed +
                        " within 30 s";
                }
            }
            return failure;
        }

        String state()
        {
            return "posted=" + posted + " completed=" + completed + " credited=" + consumed;
        }

        private boolean waitedTooLongForCredit()
        {
            final long now = System.nanoTime();
            if (creditWaitStartNs == 0)
            {
                creditWaitStartNs = now;
            }
            return now - creditWaitStartNs > CREDIT_TIMEOUT_NS;
        }

        private void offerNext()
        {
            final long sequence = posted;
            final int length = lengths[(int)sequence];
            final long reusable = Math.min(consumed, completed);
            if (sequence - reusable >= StreamPlan.MAX_IN_FLIGHT)
            {
                creditStalls++;
                return;
            }
            final long position = StreamPlan.placement(endOfPrevious, length);
            final long freeFrom = reusable == 0 ? 0 : endPositions[(int)((reusable - 1) % StreamPlan.MAX_IN_FLIGHT)];
            if (position + length - freeFrom > StreamPlan.RING_LENGTH)
            {
                creditStalls++;
                return;
            }
            final int offset = StreamPlan.ringOffset(position);
            if (preparedSequence != sequence)
            {
                final int payloadLength = length - StreamPlan.HEADER_LENGTH;
                StreamPlan.fillPayload(seed, sequence, payload, payloadLength);
                final AtomicBuffer buffer = staging.buffer();
                buffer.putLong(offset + StreamPlan.SEQUENCE_OFFSET, sequence);
                buffer.putInt(offset + StreamPlan.LENGTH_OFFSET, length);
                buffer.putInt(offset + StreamPlan.CRC_OFFSET, StreamPlan.crc32(crc, payload, payloadLength));
                buffer.putBytes(offset + StreamPlan.HEADER_LENGTH, payload, 0, payloadLength);
                preparedSequence = sequence;
                preparedPosition = position;
            }
            final int result = queuePair.postWriteWithImmediate(sequence, staging, offset, length,
                ring.address() + offset, ring.rkey(), (int)sequence, SendFlags.SIGNALED);
            if (result == PostResult.QUEUE_FULL)
            {
                queueFullRetries++;
                return;
            }
            if (result != PostResult.OK)
            {
                failure = "posting message " + sequence + " refused: " + PostResult.name(result);
                return;
            }
            endPositions[(int)(sequence % StreamPlan.MAX_IN_FLIGHT)] = preparedPosition + length;
            endOfPrevious = preparedPosition + length;
            bytes += length;
            posted++;
        }

        @Override
        public void onCompletion(final long workRequestId, final int opcode, final int status, final int byteLength,
            final int immediate, final int queuePairNumber)
        {
            if (null != failure)
            {
                return;
            }
            if (status != CompletionStatus.SUCCESS)
            {
                failure = "write of message " + workRequestId + " completed with " + CompletionStatus.name(status) +
                    " (" + completed + " completed, " + consumed + " credited)";
                return;
            }
            if (opcode != CompletionOpcode.RDMA_WRITE || workRequestId != completed)
            {
                failure = "unexpected completion " + CompletionOpcode.name(opcode) + " for wr " + workRequestId +
                    " while expecting message " + completed;
                return;
            }
            completed++;
        }
    }
}
