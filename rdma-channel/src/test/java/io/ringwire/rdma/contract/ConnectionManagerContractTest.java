package io.ringwire.rdma.contract;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.Endpoint;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.SendFlags;
import io.ringwire.rdma.cm.Connection;
import io.ringwire.rdma.cm.ConnectionListener;
import io.ringwire.rdma.cm.ConnectionManager;
import io.ringwire.rdma.cm.ConnectionManagerConfig;
import io.ringwire.rdma.cm.PendingConnection;
import io.ringwire.rdma.cm.RegionAdvertisement;
import io.ringwire.rdma.cm.RejectReason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.ringwire.rdma.Endpoint.pollUntil;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The connection manager driving a provider's real queue pairs: the publisher learns the remote
 * region's address and rkey from the exchange and its first write lands there; a wrong secret never
 * brings a queue pair to RTS.
 */
public abstract class ConnectionManagerContractTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path tempDir;

    /**
     * @param tempDir fresh directory.
     * @return the provider's configuration, not concluded.
     */
    protected abstract RdmaConfig config(Path tempDir);

    private static ConnectionManagerConfig cm(final String secret)
    {
        return new ConnectionManagerConfig().secret(secret.getBytes(StandardCharsets.UTF_8)).timeoutMs(3000).conclude();
    }

    @Test
    void handshakeAdvertisesTheRingAndTheFirstWriteLandsInIt() throws Exception
    {
        try (Endpoint publisher = new Endpoint(config(tempDir).conclude());
             Endpoint subscriber = new Endpoint(config(tempDir).conclude());
             ConnectionListener listener = ConnectionListener.bind(new InetSocketAddress("127.0.0.1", 0), cm("s3cret")))
        {
            final MemoryRegion ring = subscriber.domain.allocateRegion(8192, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            final MemoryRegion staging = publisher.domain.allocateRegion(8192, Access.LOCAL_WRITE);
            subscriber.queuePair.modifyToInit();
            subscriber.queuePair.postReceive(1, ring, 0, 0);
            publisher.queuePair.modifyToInit();

            final CompletableFuture<Connection> passive = CompletableFuture.supplyAsync(() ->
            {
                try
                {
                    final PendingConnection pending = listener.accept(TIMEOUT);
                    return pending.complete(subscriber.queuePair,
                        List.of(new RegionAdvertisement(ring.address(), ring.rkey(), ring.length())), new byte[0]);
                }
                catch (final InterruptedException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            final Connection active = ConnectionManager.connect(listener.localAddress(), publisher.queuePair, List.of(),
                "stream=1".getBytes(StandardCharsets.US_ASCII), cm("s3cret"));
            passive.get(10, TimeUnit.SECONDS);

            assertEquals(QueuePairState.READY_TO_SEND, publisher.queuePair.state());
            final RegionAdvertisement remoteRing = active.remoteRegions().get(0);
            assertEquals(ring.rkey(), remoteRing.rkey());

            final byte[] frame = "first frame".getBytes(StandardCharsets.US_ASCII);
            staging.buffer().putBytes(64, frame);
            assertEquals(PostResult.OK, publisher.queuePair.postWriteWithImmediate(7, staging, 64, frame.length,
                remoteRing.address() + 64, remoteRing.rkey(), frame.length, SendFlags.NONE));
            pollUntil(() -> subscriber.completions.size() == 1, TIMEOUT, "first frame", publisher, subscriber);
            assertEquals(CompletionOpcode.RECV_RDMA_WITH_IMM, subscriber.completions.get(0).opcode());
            assertEquals(CompletionStatus.SUCCESS, subscriber.completions.get(0).status());
            final byte[] landed = new byte[frame.length];
            ring.buffer().getBytes(64, landed);
            assertArrayEquals(frame, landed);
        }
    }

    @Test
    void wrongSecretIsRejectedAndTheQueuePairNeverReachesReadyToSend() throws Exception
    {
        try (Endpoint publisher = new Endpoint(config(tempDir).conclude());
             ConnectionListener listener = ConnectionListener.bind(new InetSocketAddress("127.0.0.1", 0), cm("right")))
        {
            publisher.queuePair.modifyToInit();
            // The listener's CHALLENGE does not verify under the publisher's key of its name: refused
            // before the REQ, and counted at the listener, which is told why.
            final RdmaException ex = assertThrows(RdmaException.class, () ->
                ConnectionManager.connect(listener.localAddress(), publisher.queuePair, List.of(), new byte[0], cm("wrong")));
            assertTrue(ex.getMessage().contains(RejectReason.BAD_AUTHENTICATION.name()), ex.getMessage());
            assertEquals(QueuePairState.INIT, publisher.queuePair.state());
            final long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (listener.counters().challengesRefused() == 0 && System.nanoTime() < until)
            {
                Thread.sleep(5);
            }
            assertEquals(1, listener.counters().challengesRefused());
            assertEquals(0, listener.counters().accepted());
        }
    }
}
