package io.ringwire.rdma.shm;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.SendFlags;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RDMA WRITE and WRITE WITH IMMEDIATE over shm, including the responder's access checks.
 */
final class ShmWriteTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final int RING_BYTES = 64 * 1024;

    @TempDir
    Path directory;

    private ShmSide requester;
    private ShmSide responder;

    @BeforeEach
    void connect()
    {
        requester = new ShmSide(ShmSide.config(directory, 2000), RING_BYTES);
        responder = new ShmSide(ShmSide.config(directory, 2000), RING_BYTES);
        ShmSide.connect(requester, responder);
    }

    @AfterEach
    void close()
    {
        CloseHelper.closeAll(requester, responder);
    }

    @Test
    void writeLandsByteExactAtTheRequestedOffset()
    {
        final byte[] payload = randomBytes(777, 1);
        requester.region.buffer().putBytes(100, payload);

        assertEquals(PostResult.OK, requester.queuePair.postWrite(1, requester.region, 100, payload.length,
            responder.region.address() + 3000, responder.region.rkey(), SendFlags.SIGNALED));

        requester.poll();
        assertEquals(List.of(new PolledCompletion(1, CompletionOpcode.RDMA_WRITE, CompletionStatus.SUCCESS,
            payload.length, 0, requester.queuePair.queuePairNumber())), requester.completions);
        final byte[] expected = new byte[ShmSide.REGION_LENGTH];
        System.arraycopy(payload, 0, expected, 3000, payload.length);
        assertArrayEquals(expected, contents(responder.region), "only [3000, 3777) of the responder region changes");
        responder.poll();
        assertEquals(List.of(), responder.completions, "a plain WRITE consumes no receive");
    }

    @Test
    void writeWithImmediateYieldsExactlyOneReceiveCompletionWithImmediateAndLength()
    {
        final byte[] payload = randomBytes(500, 2);
        requester.region.buffer().putBytes(0, payload);
        assertEquals(PostResult.OK, responder.queuePair.postReceive(10, responder.region, 0, 0));
        assertEquals(PostResult.OK, responder.queuePair.postReceive(11, responder.region, 0, 0));

        assertEquals(PostResult.OK, requester.queuePair.postWriteWithImmediate(2, requester.region, 0, payload.length,
            responder.region.address() + 8192, responder.region.rkey(), 0xCAFEBABE, SendFlags.SIGNALED));

        ShmSide.pollUntil(() -> !responder.completions.isEmpty(), TIMEOUT, "the RECV_RDMA_WITH_IMM", responder);
        ShmSide.pollFor(Duration.ofMillis(20), requester, responder);
        assertEquals(List.of(new PolledCompletion(10, CompletionOpcode.RECV_RDMA_WITH_IMM, CompletionStatus.SUCCESS,
            payload.length, 0xCAFEBABE, responder.queuePair.queuePairNumber())), responder.completions);
        assertEquals(List.of(new PolledCompletion(2, CompletionOpcode.RDMA_WRITE, CompletionStatus.SUCCESS,
            payload.length, 0, requester.queuePair.queuePairNumber())), requester.completions);
        final byte[] landed = new byte[payload.length];
        responder.region.buffer().getBytes(8192, landed);
        assertArrayEquals(payload, landed, "the data is in place when the completion arrives");
        assertEquals(1, responder.device.counters().get(DeviceCounters.REQUESTS_EXECUTED));
    }

    @Test
    void unsignaledWritesProduceNoCompletion()
    {
        assertEquals(PostResult.OK, responder.queuePair.postReceive(20, responder.region, 0, 0));
        for (int i = 0; i < 10; i++)
        {
            requester.region.buffer().putInt(i * 4, i + 1);
            assertEquals(PostResult.OK, requester.queuePair.postWrite(i, requester.region, i * 4, 4,
                responder.region.address() + i * 4, responder.region.rkey(), SendFlags.NONE));
        }
        assertEquals(PostResult.OK, requester.queuePair.postWriteWithImmediate(10, requester.region, 0, 40,
            responder.region.address() + 1024, responder.region.rkey(), 7, SendFlags.NONE));

        ShmSide.pollUntil(() -> responder.completions.size() == 1, TIMEOUT, "the RECV_RDMA_WITH_IMM", responder);
        ShmSide.pollFor(Duration.ofMillis(20), requester, responder);
        assertEquals(List.of(), requester.completions, "no completion for unsignaled successes");
        for (int i = 0; i < 10; i++)
        {
            assertEquals(i + 1, responder.region.buffer().getInt(i * 4));
            assertEquals(i + 1, responder.region.buffer().getInt(1024 + i * 4));
        }
        assertEquals(QueuePairState.READY_TO_SEND, requester.queuePair.state());
    }

    @Test
    void writeWithUnknownRkeyFailsWithRemoteAccessErrorEvenUnsignaledAndWritesNothing()
    {
        requester.region.buffer().setMemory(0, 64, (byte)0x7F);
        final int unknownRkey = responder.region.rkey() + 1;

        assertEquals(PostResult.OK, requester.queuePair.postWrite(5, requester.region, 0, 64,
            responder.region.address(), unknownRkey, SendFlags.NONE));

        assertRefused(5, 64, DeviceCounters.RESPONDER_UNKNOWN_RKEY, responder.region);
    }

    @ParameterizedTest(name = "offset {0} length {1}")
    @CsvSource({
        "-1, 1",
        "-4096, 4097",
        "65535, 2",
        "1, 65536",
        "65536, 1",
        "9223372036854775807, 1",
        "-9223372036854775808, 8" })
    void writeOutsideTheRegionFailsWithRemoteAccessErrorAndWritesNothing(final long offset, final int length)
    {
        requester.region.buffer().setMemory(0, length, (byte)0x7F);

        assertEquals(PostResult.OK, requester.queuePair.postWrite(6, requester.region, 0, length,
            responder.region.address() + offset, responder.region.rkey(), SendFlags.NONE));

        assertRefused(6, length, DeviceCounters.RESPONDER_OUT_OF_BOUNDS, responder.region);
    }

    @Test
    void writeToRegionWithoutRemoteWriteFailsWithRemoteAccessErrorAndWritesNothing()
    {
        final MemoryRegion localOnly = responder.domain.allocateRegion(4096, Access.LOCAL_WRITE);
        requester.region.buffer().setMemory(0, 128, (byte)0x7F);

        assertEquals(PostResult.OK, requester.queuePair.postWrite(7, requester.region, 0, 128,
            localOnly.address(), localOnly.rkey(), SendFlags.NONE));

        assertRefused(7, 128, DeviceCounters.RESPONDER_ACCESS_DENIED, localOnly);
    }

    @Test
    void aRegionsOwnerCannotShrinkTheFileAPeerWritesIntoSoThePeersNextWriteLandsAndNoFaultReachesIt()
        throws Exception
    {
        final int length = 64;
        requester.region.buffer().setMemory(0, length, (byte)0x33);
        assertEquals(PostResult.OK, requester.queuePair.postWrite(1, requester.region, 0, length,
            responder.region.address() + ShmSide.REGION_LENGTH - length, responder.region.rkey(), SendFlags.SIGNALED));
        requester.poll();
        assertEquals(CompletionStatus.SUCCESS, requester.completions.get(0).status(), "the first write maps the region");

        // What a hostile owner does to a file a peer maps: a truncated mapping faults its next store
        // (a SIGBUS, in Java an InternalError from the writer's poll).
        final ShmRemoteRegion slot = new ShmRemoteRegion();
        assertTrue(responder.device.regionTable().find(responder.region.rkey(), slot));
        final Path file = responder.device.shmAddress().regionFile(slot.fileNumber);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            assertThrows(IOException.class, () -> channel.truncate(0), "the file is sealed against shrinking");
            assertEquals(ShmSide.REGION_LENGTH, channel.size());
        }

        requester.region.buffer().setMemory(0, length, (byte)0x44);
        assertEquals(PostResult.OK, requester.queuePair.postWrite(2, requester.region, 0, length,
            responder.region.address() + ShmSide.REGION_LENGTH - length, responder.region.rkey(), SendFlags.SIGNALED));
        requester.poll();
        assertEquals(List.of(
            new PolledCompletion(1, CompletionOpcode.RDMA_WRITE, CompletionStatus.SUCCESS, length, 0, qpn()),
            new PolledCompletion(2, CompletionOpcode.RDMA_WRITE, CompletionStatus.SUCCESS, length, 0, qpn())),
            requester.completions);
        assertEquals(0x44, responder.region.buffer().getByte(ShmSide.REGION_LENGTH - 1));
    }

    @Test
    void aPeerRegionFileThatCouldBeShrunkIsNeverMappedAndTheWriteIsRefusedAndCounted() throws Exception
    {
        final ShmRemoteRegion slot = new ShmRemoteRegion();
        assertTrue(responder.device.regionTable().find(responder.region.rkey(), slot));
        final Path file = responder.device.shmAddress().regionFile(slot.fileNumber);
        // A hostile owner names a plain file of the right length where its region's file was.
        Files.delete(file);
        Files.write(file, new byte[ShmSide.REGION_LENGTH]);

        requester.region.buffer().setMemory(0, 64, (byte)0x55);
        assertEquals(PostResult.OK, requester.queuePair.postWrite(3, requester.region, 0, 64,
            responder.region.address(), responder.region.rkey(), SendFlags.SIGNALED));
        requester.poll();
        assertEquals(List.of(
            new PolledCompletion(3, CompletionOpcode.RDMA_WRITE, CompletionStatus.REMOTE_ACCESS_ERROR, 64, 0, qpn())),
            requester.completions);
        assertEquals(1, responder.device.counters().get(DeviceCounters.RESPONDER_ACCESS_DENIED));
        assertArrayEquals(new byte[ShmSide.REGION_LENGTH], Files.readAllBytes(file), "nothing written to the plain file");
    }

    @Test
    void writeToDeregisteredRegionFailsWithRemoteAccessErrorAndWritesNothing() throws Exception
    {
        final MemoryRegion doomed = responder.domain.allocateRegion(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        final int rkey = doomed.rkey();
        final long address = doomed.address();
        requester.region.buffer().setMemory(0, 64, (byte)0x11);
        assertEquals(PostResult.OK, requester.queuePair.postWrite(8, requester.region, 0, 64, address, rkey,
            SendFlags.SIGNALED));
        requester.poll();
        assertEquals(CompletionStatus.SUCCESS, requester.completions.get(0).status(), "first write maps and caches it");

        // Keep a mapping of the region's file to see what a late write would do to the memory.
        final ShmRemoteRegion slot = new ShmRemoteRegion();
        assertTrue(responder.device.regionTable().find(rkey, slot));
        final Path file = responder.device.shmAddress().regionFile(slot.fileNumber);
        final MappedByteBuffer witness = ShmFiles.mapExistingRange(file, 4096);
        try
        {
            doomed.close();
            assertFalse(Files.exists(file), "deregistration deletes the region's file");

            requester.region.buffer().setMemory(0, 64, (byte)0x22);
            assertEquals(PostResult.OK, requester.queuePair.postWrite(9, requester.region, 0, 64, address, rkey,
                SendFlags.NONE));

            requester.poll();
            assertEquals(List.of(
                new PolledCompletion(8, CompletionOpcode.RDMA_WRITE, CompletionStatus.SUCCESS, 64, 0, qpn()),
                new PolledCompletion(9, CompletionOpcode.RDMA_WRITE, CompletionStatus.REMOTE_ACCESS_ERROR, 64, 0, qpn())),
                requester.completions);
            assertEquals(1, responder.device.counters().get(DeviceCounters.RESPONDER_UNKNOWN_RKEY));
            final UnsafeBuffer memory = new UnsafeBuffer(witness, 0, 4096);
            for (int i = 0; i < 4096; i++)
            {
                assertEquals(i < 64 ? 0x11 : 0, memory.getByte(i), "byte " + i + " after the refused write");
            }
        }
        finally
        {
            ShmFiles.unmap(witness);
        }
    }

    @Test
    void postAfterErrorCompletesWithFlushError()
    {
        assertEquals(PostResult.OK, requester.queuePair.postReceive(30, requester.region, 0, 16));
        requester.queuePair.modifyToError();
        requester.region.buffer().setMemory(0, 32, (byte)0x7F);

        assertEquals(PostResult.OK, requester.queuePair.postWrite(31, requester.region, 0, 32,
            responder.region.address(), responder.region.rkey(), SendFlags.NONE));
        assertEquals(PostResult.OK, requester.queuePair.postSend(32, requester.region, 0, 32, SendFlags.NONE));
        assertEquals(PostResult.OK, requester.queuePair.postReceive(33, requester.region, 0, 16));

        requester.poll();
        assertEquals(List.of(
            new PolledCompletion(30, CompletionOpcode.RECV, CompletionStatus.WR_FLUSH_ERROR, 0, 0, qpn()),
            new PolledCompletion(31, CompletionOpcode.RDMA_WRITE, CompletionStatus.WR_FLUSH_ERROR, 32, 0, qpn()),
            new PolledCompletion(32, CompletionOpcode.SEND, CompletionStatus.WR_FLUSH_ERROR, 32, 0, qpn()),
            new PolledCompletion(33, CompletionOpcode.RECV, CompletionStatus.WR_FLUSH_ERROR, 0, 0, qpn())),
            requester.completions);
        assertArrayEquals(new byte[ShmSide.REGION_LENGTH], contents(responder.region));
    }

    @Test
    void inlineLongerThanMaxInlineIsRejectedWithInvalidArgument()
    {
        final int maxInline = requester.device.maxInlineData();
        requester.region.buffer().setMemory(0, maxInline + 1, (byte)0x7F);

        assertEquals(PostResult.INVALID_ARGUMENT, requester.queuePair.postWrite(40, requester.region, 0,
            maxInline + 1, responder.region.address(), responder.region.rkey(), SendFlags.INLINE | SendFlags.SIGNALED));
        assertEquals(PostResult.INVALID_ARGUMENT, requester.queuePair.postSend(41, requester.region, 0,
            maxInline + 1, SendFlags.INLINE | SendFlags.SIGNALED));
        requester.poll();
        assertEquals(List.of(), requester.completions, "a refused post never completes");
        assertArrayEquals(new byte[ShmSide.REGION_LENGTH], contents(responder.region));

        assertEquals(PostResult.OK, requester.queuePair.postWrite(42, requester.region, 0, maxInline,
            responder.region.address(), responder.region.rkey(), SendFlags.INLINE | SendFlags.SIGNALED));
        requester.poll();
        assertEquals(CompletionStatus.SUCCESS, requester.completions.get(0).status());
    }

    @Test
    void privateMemoryRegisteredForLocalAccessCanBeTheSourceOfAWrite()
    {
        final ByteBuffer staging = ByteBuffer.allocateDirect(256);
        final MemoryRegion local = requester.domain.register(staging, Access.LOCAL_WRITE);
        local.buffer().putLong(8, 0x0123456789ABCDEFL);

        assertEquals(PostResult.OK, requester.queuePair.postWrite(50, local, 8, 8,
            responder.region.address() + 16, responder.region.rkey(), SendFlags.SIGNALED));

        requester.poll();
        assertEquals(CompletionStatus.SUCCESS, requester.completions.get(0).status());
        assertEquals(0x0123456789ABCDEFL, responder.region.buffer().getLong(16));
    }

    private void assertRefused(final long workRequestId, final int length, final int responderCounter,
        final MemoryRegion target)
    {
        requester.poll();
        assertEquals(List.of(new PolledCompletion(workRequestId, CompletionOpcode.RDMA_WRITE,
            CompletionStatus.REMOTE_ACCESS_ERROR, length, 0, qpn())), requester.completions,
            "an unsignaled failed write still completes, with REMOTE_ACCESS_ERROR");
        assertEquals(QueuePairState.ERROR, requester.queuePair.state());
        assertEquals(1, responder.device.counters().get(responderCounter),
            DeviceCounters.name(responderCounter) + " on the responder: " + responder.device.counters());
        assertArrayEquals(new byte[target.length()], contents(target), "not one byte written");
    }

    private int qpn()
    {
        return requester.queuePair.queuePairNumber();
    }

    private static byte[] contents(final MemoryRegion region)
    {
        final byte[] bytes = new byte[region.length()];
        region.buffer().getBytes(0, bytes);
        return bytes;
    }

    private static byte[] randomBytes(final int length, final long seed)
    {
        final byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        for (int i = 0; i < length; i++)
        {
            bytes[i] = bytes[i] == 0 ? 1 : bytes[i]; // nonzero, so a missing byte shows against zero-filled memory
        }
        return bytes;
    }
}
