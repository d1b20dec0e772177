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
import io.ringwire.rdma.cm.ConnectionListener;
import io.ringwire.rdma.cm.PendingConnection;
import io.ringwire.rdma.cm.RegionAdvertisement;
import org.agrona.concurrent.AtomicBuffer;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import static io.ringwire.rdma.faults.ChildSupport.required;

/**
 * The receiving end of the fault test, run in namespace b of the lab: advertises a ring region
 * through the connection manager, keeps {@link StreamPlan#MAX_IN_FLIGHT} receives posted, and for
 * every RDMA WRITE WITH IMMEDIATE checks that it is the next message (immediate, sequence number,
 * length from the seeded plan), that its CRC32 matches and that its payload is byte-for-byte the
 * one the plan generates. It returns credit (messages consumed) with INLINE RDMA WRITEs into the
 * sender's credit region. After the last message it watches for half a second that nothing more
 * arrives.
 *
 * <p>Output lines: {@code LISTENING ip:port}, {@code CONNECTED ...}, {@code PROGRESS n} every
 * 10,000 messages, then {@code VERDICT OK ...} or {@code VERDICT FAIL reason}, then
 * {@code COUNTERS side=receiver ...}. Exit status 0 only for OK.
 *
 * <p>Arguments ({@code key=value}): provider, bind (data path ip:port), listen (connection manager
 * ip), messages, seed, secret, peerTimeoutMs, lifetimeMs.
 */
public final class StreamReceiver
{
    private static final int SEND_DEPTH = 64;
    private static final int CREDIT_EVERY = 16;
    private static final int PROGRESS_EVERY = 10_000;
    private static final long FINAL_CREDIT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(15);
    private static final long TRAILING_QUIET_NS = TimeUnit.MILLISECONDS.toNanos(500);

    private StreamReceiver()
    {
    }

    public static void main(final String[] argv) throws Exception
    {
        final Map<String, String> args = ChildSupport.arguments(argv);
        ChildSupport.startWatchdog("receiver", Long.parseLong(required(args, "lifetimeMs")));
        final int messages = Integer.parseInt(required(args, "messages"));
        final long seed = Long.parseLong(required(args, "seed"));

        try (Device device = RdmaProviders.open(ChildSupport.deviceConfig(args));
             ConnectionListener listener = ConnectionListener.bind(
                 new InetSocketAddress(required(args, "listen"), 0), ChildSupport.connectionManagerConfig(args)))
        {
            final ProtectionDomain domain = device.allocateProtectionDomain();
            final MemoryRegion ring = domain.allocateRegion(StreamPlan.RING_LENGTH, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            final MemoryRegion creditStaging = domain.allocateRegion(4096, Access.LOCAL_WRITE);
            final CompletionQueue completions = device.createCompletionQueue(4 * StreamPlan.MAX_IN_FLIGHT);
            final QueuePair queuePair = domain.createQueuePair(new QueuePairConfig(completions, completions, SEND_DEPTH,
                StreamPlan.MAX_IN_FLIGHT, Math.min(device.maxInlineData(), 64)));
            queuePair.modifyToInit();
            for (int i = 0; i < StreamPlan.MAX_IN_FLIGHT; i++)
            {
                check(queuePair.postReceive(i, ring, 0, 0), "initial receive");
            }
            System.out.println("LISTENING " + listener.localAddress().getAddress().getHostAddress() + ":" +
                listener.localAddress().getPort() + " device=" + device.address());
            System.out.flush();

            final PendingConnection pending = listener.accept(Duration.ofSeconds(60));
            if (null == pending)
            {
                fail(device, "no connection request within 60 s");
                return;
            }
            final String description = ChildSupport.streamDescription(args);
            final String offered = new String(pending.remoteApplicationData(), StandardCharsets.US_ASCII);
            if (!description.equals(offered))
            {
                pending.reject("stream mismatch: receiver expects '" + description + "'");
                fail(device, "the sender offers '" + offered + "' but this receiver expects '" + description + "'");
                return;
            }
            final Connection connection = pending.complete(queuePair, List.of(RegionAdvertisement.of(ring)), new byte[0]);
            final RegionAdvertisement creditRegion = connection.remoteRegions().getFirst();
            System.out.println("CONNECTED " + connection);
            System.out.flush();

            final Verifier verifier = new Verifier(queuePair, ring, creditStaging, creditRegion, messages, seed);
            ChildSupport.diagnostics(() -> "consumed=" + verifier.consumed + " " + StreamPlan.countersLine("receiver", device));
            final long startNs = System.nanoTime();
            final String failure = verifier.run(completions);
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            if (null != failure)
            {
                fail(device, failure);
                return;
            }
            System.out.println("VERDICT OK messages=" + verifier.consumed + " bytes=" + verifier.bytes +
                " elapsedMs=" + elapsedMs + " creditWrites=" + verifier.creditWrites);
            System.out.println(StreamPlan.countersLine("receiver", device));
            System.out.flush();
        }
        catch (final Exception ex)
        {
            System.out.println("VERDICT FAIL " + ex);
            ex.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
        }
    }

    private static void fail(final Device device, final String reason)
    {
        System.out.println("VERDICT FAIL " + reason);
        System.out.println(StreamPlan.countersLine("receiver", device));
        System.out.flush();
        System.exit(1);
    }

    static void check(final int postResult, final String what)
    {
        if (postResult != PostResult.OK)
        {
            throw new IllegalStateException(what + " refused: " + PostResult.name(postResult));
        }
    }

    /**
     * Polls, verifies, re-posts receives and returns credit. Owning thread only.
     */
    private static final class Verifier implements CompletionHandler
    {
        private final QueuePair queuePair;
        private final MemoryRegion ring;
        private final MemoryRegion creditStaging;
        private final RegionAdvertisement creditRegion;
        private final int messages;
        private final long seed;
        private final int[] lengths;
        private final byte[] received = new byte[StreamPlan.MAX_MESSAGE_LENGTH];
        private final byte[] expected = new byte[StreamPlan.MAX_MESSAGE_LENGTH];
        private final CRC32 crc = new CRC32();

        volatile long consumed; // read by the watchdog's diagnostics
        long bytes;
        long creditWrites;
        private final long startNs = System.nanoTime();
        private long creditedUpTo;
        private long endOfPrevious;
        private boolean finalCreditCompleted;
        private String failure;

        Verifier(final QueuePair queuePair, final MemoryRegion ring, final MemoryRegion creditStaging,
            final RegionAdvertisement creditRegion, final int messages, final long seed)
        {
            this.queuePair = queuePair;
            this.ring = ring;
            this.creditStaging = creditStaging;
            this.creditRegion = creditRegion;
            this.messages = messages;
            this.seed = seed;
            this.lengths = StreamPlan.messageLengths(seed, messages);
        }

        String run(final CompletionQueue completions)
        {
            while (null == failure && consumed < messages)
            {
                if (completions.poll(this, 64) == 0 && creditedUpTo < consumed)
                {
                    postCredit(SendFlags.NONE); // idle: hand back whatever was consumed since the last credit
                }
            }
            if (null != failure)
            {
                return failure;
            }
            // The last credit is signaled: its completion means every credit reached the sender.
            final long deadline = System.nanoTime() + FINAL_CREDIT_TIMEOUT_NS;
            while (!postCredit(SendFlags.SIGNALED))
            {
                completions.poll(this, 64);
                if (System.nanoTime() > deadline)
                {
                    return "could not post the final credit within 15 s";
                }
            }
            while (null == failure && !finalCreditCompleted)
            {
                completions.poll(this, 64);
                if (System.nanoTime() > deadline)
                {
                    return "the final credit write did not complete within 15 s";
                }
            }
            // Exactly once includes "nothing more": a late duplicate delivery would consume a receive
            // and fail verify() as a message beyond the end of the stream.
            final long quietUntil = System.nanoTime() + TRAILING_QUIET_NS;
            while (null == failure && System.nanoTime() < quietUntil)
            {
                completions.poll(this, 64);
            }
            return failure;
        }

        private boolean postCredit(final int flags)
        {
            final AtomicBuffer staging = creditStaging.buffer();
            staging.putLong(StreamPlan.CREDIT_CONSUMED_OFFSET, consumed);
            staging.putLong(StreamPlan.CREDIT_CHECK_OFFSET, consumed ^ StreamPlan.CREDIT_CHECK);
            final int result = queuePair.postWrite(consumed, creditStaging, 0, StreamPlan.CREDIT_LENGTH,
                creditRegion.address(), creditRegion.rkey(), flags | SendFlags.INLINE);
            if (result == PostResult.OK)
            {
                creditedUpTo = consumed;
                creditWrites++;
                return true;
            }
            if (result != PostResult.QUEUE_FULL)
            {
                failure = "credit write refused: " + PostResult.name(result);
            }
            return false; // queue full: credit again at the next chance
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
                failure = "completion " + CompletionOpcode.name(opcode) + " wr " + workRequestId + " failed with " +
                    CompletionStatus.name(status) + " after " + consumed + " messages";
                return;
            }
            if (opcode == CompletionOpcode.RDMA_WRITE)
            {
                finalCreditCompleted = true; // only the final credit is signaled
                return;
            }
            if (opcode != CompletionOpcode.RECV_RDMA_WITH_IMM)
            {
                failure = "unexpected completion " + CompletionOpcode.name(opcode) + " after " + consumed + " messages";
                return;
            }
            failure = verify(byteLength, immediate);
            if (null != failure)
            {
                return;
            }
            final int result = queuePair.postReceive(workRequestId, ring, 0, 0);
            if (result != PostResult.OK)
            {
                failure = "re-posting receive " + workRequestId + " refused: " + PostResult.name(result);
                return;
            }
            consumed++;
            if (consumed - creditedUpTo >= CREDIT_EVERY)
            {
                postCredit(SendFlags.NONE);
            }
            if (consumed % PROGRESS_EVERY == 0)
            {
                System.out.println("PROGRESS " + consumed + " elapsedMs=" +
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs));
                System.out.flush();
            }
        }

        private String verify(final int byteLength, final int immediate)
        {
            final long sequence = consumed;
            if (sequence >= messages)
            {
                return "message beyond the end of the stream (immediate " + immediate + ") after " + consumed;
            }
            final int length = lengths[(int)sequence];
            final long position = StreamPlan.placement(endOfPrevious, length);
            final int offset = StreamPlan.ringOffset(position);
            final AtomicBuffer buffer = ring.buffer();
            final long headerSequence = buffer.getLong(offset + StreamPlan.SEQUENCE_OFFSET);
            if (immediate != (int)sequence || headerSequence != sequence)
            {
                return "out of order, lost or duplicated: expected message " + sequence + " but the immediate says " +
                    immediate + " and the header at ring offset " + offset + " says " + headerSequence;
            }
            final int headerLength = buffer.getInt(offset + StreamPlan.LENGTH_OFFSET);
            if (byteLength != length || headerLength != length)
            {
                return "message " + sequence + ": length " + byteLength + " in the completion, " + headerLength +
                    " in the header, " + length + " in the plan";
            }
            final int payloadLength = length - StreamPlan.HEADER_LENGTH;
            buffer.getBytes(offset + StreamPlan.HEADER_LENGTH, received, 0, payloadLength);
            final int actualCrc = StreamPlan.crc32(crc, received, payloadLength);
            final int headerCrc = buffer.getInt(offset + StreamPlan.CRC_OFFSET);
            if (actualCrc != headerCrc)
            {
                return "message " + sequence + ": CRC32 of the payload is 0x" + Integer.toHexString(actualCrc) +
                    " but the header says 0x" + Integer.toHexString(headerCrc);
            }
            StreamPlan.fillPayload(seed, sequence, expected, payloadLength);
            final int mismatch = Arrays.mismatch(received, 0, payloadLength, expected, 0, payloadLength);
            if (mismatch >= 0)
            {
                return "message " + sequence + ": payload byte " + mismatch + " is " + received[mismatch] +
                    ", expected " + expected[mismatch] + " (the CRC matched: the sender sent other bytes)";
            }
            endOfPrevious = position + length;
            bytes += length;
            return null;
        }
    }
}
