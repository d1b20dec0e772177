package io.ringwire.rdma.interop;

import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.Endpoint;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.cm.Connection;
import io.ringwire.rdma.cm.ConnectionListener;
import io.ringwire.rdma.cm.ConnectionManagerConfig;
import io.ringwire.rdma.cm.PendingConnection;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The pure-Java {@code roce} side of {@link RxeRoceInteropTest}: run by the test in another
 * network namespace (the far end of the veth, where rxe does not own UDP 4791). Binds the roce
 * device to {@code IP:4791}, listens for the connection manager on {@code IP:CM_PORT}, accepts one
 * connection and runs {@link InteropTraffic} as side 1. Talks to the test over stdin/stdout:
 * prints {@code LISTENING ip port}, then {@code COUNTERS name=value...} and {@code DONE OK} or
 * {@code DONE FAIL reason}, and closes when stdin says {@code BYE} (or ends).
 *
 * <pre>RoceInteropPeer IP CM_PORT WRITES SENDS TIMEOUT_SECONDS SECRET</pre>
 */
public final class RoceInteropPeer
{
    private RoceInteropPeer()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String ip = args[0];
        final int cmPort = Integer.parseInt(args[1]);
        final int writes = Integer.parseInt(args[2]);
        final int sends = Integer.parseInt(args[3]);
        final long timeoutNs = Duration.ofSeconds(Long.parseLong(args[4])).toNanos();
        final ConnectionManagerConfig cm = new ConnectionManagerConfig()
            .secret(args[5].getBytes(StandardCharsets.UTF_8)).timeoutMs(60_000).conclude();
        final long deadline = System.nanoTime() + timeoutNs;
        final RdmaConfig config = new RdmaConfig().provider("roce").bindAddress(ip + ":4791").mtu(1024).conclude();
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String result;
        try (Endpoint endpoint = new Endpoint(config, 16, 64);
             ConnectionListener listener = ConnectionListener.bind(new InetSocketAddress(ip, cmPort), cm))
        {
            final InteropTraffic traffic = new InteropTraffic(endpoint, 1, writes, sends);
            endpoint.queuePair.modifyToInit();
            traffic.postInitialReceives();
            System.out.println("LISTENING " + listener.localAddress().getAddress().getHostAddress() + " " +
                listener.localAddress().getPort());
            System.out.flush();
            final PendingConnection pending = listener.accept(Duration.ofNanos(timeoutNs));
            if (null == pending)
            {
                result = "FAIL no connection within the timeout";
            }
            else
            {
                final Connection connection = pending.complete(endpoint.queuePair, List.of(traffic.advertisement()),
                    "roce".getBytes(StandardCharsets.US_ASCII));
                traffic.remote(connection.remoteRegions().get(0));
                final long started = System.nanoTime();
                final String failure = traffic.run(deadline);
                System.out.println("ELAPSED_MS " + (System.nanoTime() - started) / 1_000_000 + " " + traffic.progress());
                result = null == failure ? "OK" : "FAIL " + failure;
            }
            final DeviceCounters counters = endpoint.device.counters();
            final StringBuilder sb = new StringBuilder("COUNTERS");
            for (int i = 0; i < DeviceCounters.COUNT; i++)
            {
                sb.append(' ').append(DeviceCounters.name(i).replace(' ', '_')).append('=').append(counters.get(i));
            }
            System.out.println(sb);
            System.out.println("DONE " + result);
            System.out.flush();
            // Keep the queue pair up until the test has its own completions (it says BYE).
            final long linger = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (System.nanoTime() < linger)
            {
                if (in.ready())
                {
                    final String line = in.readLine();
                    if (null == line || line.startsWith("BYE"))
                    {
                        break;
                    }
                }
                endpoint.poll();
                endpoint.completions.clear();
                Thread.onSpinWait();
            }
        }
        catch (final Throwable t)
        {
            System.out.println("DONE FAIL " + t);
            t.printStackTrace();
            System.out.flush();
            System.exit(1);
        }
        System.exit(0);
    }
}
