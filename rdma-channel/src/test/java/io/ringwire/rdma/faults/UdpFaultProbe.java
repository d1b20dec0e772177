package io.ringwire.rdma.faults;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import static io.ringwire.rdma.faults.ChildSupport.required;

/**
 * Measures what the lab does to a UDP stream: a paced sender in one namespace, a receiver in the
 * other that classifies every datagram. Used by {@link FaultyLabRatesTest} to prove each fault
 * mechanism of {@code netns-lab.sh} with numbers.
 *
 * <pre>
 *   datagram: | seq(8) | crc(4) | send time(8) | filler |    crc: CRC32 of all but itself, little-endian
 *   end marker: seq = -1, sent 50 times after the stream
 * </pre>
 *
 * Receiver output, one line: {@code PROBE sent=? received= unique= rcvbufErrors= lost= duplicates=
 * late= corrupted= longestMissingRun= missingSpanUs= maxGapUs=}; late = arrived after a higher
 * sequence number (reordered); rcvbufErrors = datagrams the receiving kernel dropped because this
 * receiver fell behind (a busy machine), counted in lost but not the lab's doing. A blackout shows as the longest run of consecutive missing sequence numbers, the
 * span of send times it covers (from the datagram before it to the one after, so the sender's
 * pacing does not matter) and the longest silence between two intact arrivals.
 *
 * <p>Arguments: {@code mode=receive bind=ip port= count= quietMs= lifetimeMs=} or
 * {@code mode=send bind=ip to=ip port= count= size= rate=(datagrams/s) lifetimeMs=}.
 */
public final class UdpFaultProbe
{
    static final int HEADER_LENGTH = 12;
    /** Inside the filler, so covered by the CRC: System.nanoTime() at sending (CLOCK_MONOTONIC, one clock for all processes). */
    static final int SEND_TIME_OFFSET = 12;
    static final int MIN_SIZE = SEND_TIME_OFFSET + Long.BYTES;
    private static final long END_MARKER = -1;
    private static final int END_MARKERS = 50;

    private UdpFaultProbe()
    {
    }

    public static void main(final String[] argv) throws Exception
    {
        final Map<String, String> args = ChildSupport.arguments(argv);
        ChildSupport.startWatchdog("probe-" + required(args, "mode"), Long.parseLong(required(args, "lifetimeMs")));
        switch (required(args, "mode"))
        {
            case "receive" -> receive(args);
            case "send" -> send(args);
            default -> throw new IllegalArgumentException("mode=receive or mode=send");
        }
    }

    private static void send(final Map<String, String> args) throws Exception
    {
        final int count = Integer.parseInt(required(args, "count"));
        final int size = Integer.parseInt(required(args, "size"));
        if (size < MIN_SIZE)
        {
            throw new IllegalArgumentException("size must be >= " + MIN_SIZE);
        }
        final long intervalNs = TimeUnit.SECONDS.toNanos(1) / Long.parseLong(required(args, "rate"));
        final InetSocketAddress to = new InetSocketAddress(InetAddress.getByName(required(args, "to")),
            Integer.parseInt(required(args, "port")));
        final byte[] bytes = new byte[size];
        final ByteBuffer datagram = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        final CRC32 crc = new CRC32();
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(required(args, "bind"), 0)))
        {
            System.out.println("SENDING count=" + count + " size=" + size + " intervalNs=" + intervalNs);
            System.out.flush();
            final long startNs = System.nanoTime();
            for (int seq = 0; seq < count; seq++)
            {
                for (int i = HEADER_LENGTH; i < size; i++)
                {
                    bytes[i] = (byte)(seq * 31 + i);
                }
                datagram.putLong(0, seq);
                datagram.putLong(SEND_TIME_OFFSET, System.nanoTime());
                datagram.putInt(8, checksum(crc, bytes, size));
                socket.send(new DatagramPacket(bytes, size, to));
                final long due = startNs + (seq + 1) * intervalNs;
                while (System.nanoTime() < due)
                {
                    Thread.onSpinWait();
                }
            }
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            datagram.putLong(0, END_MARKER);
            for (int i = 0; i < END_MARKERS; i++)
            {
                socket.send(new DatagramPacket(bytes, HEADER_LENGTH, to));
                Thread.sleep(2);
            }
            System.out.println("SENT count=" + count + " elapsedMs=" + elapsedMs);
        }
    }

    /**
     * @return the namespace's count of UDP datagrams dropped because a socket's receive buffer was
     *         full (/proc/net/snmp shows the reader's network namespace): losses of this host, not
     *         of the lab, which the tests take out of their accounts.
     */
    private static long udpReceiveBufferErrors() throws IOException
    {
        final List<String> udp = Files.readAllLines(Path.of("/proc/net/snmp")).stream()
            .filter(line -> line.startsWith("Udp:")).toList();
        final List<String> names = List.of(udp.get(0).split("\\s+"));
        return Long.parseLong(udp.get(1).split("\\s+")[names.indexOf("RcvbufErrors")]);
    }

    static int checksum(final CRC32 crc, final byte[] bytes, final int length)
    {
        crc.reset();
        crc.update(bytes, 0, 8);
        crc.update(bytes, HEADER_LENGTH, length - HEADER_LENGTH);
        return (int)crc.getValue();
    }

    private static void receive(final Map<String, String> args) throws Exception
    {
        final int count = Integer.parseInt(required(args, "count"));
        final int quietMs = Integer.parseInt(required(args, "quietMs"));
        final byte[] bytes = new byte[65536];
        final ByteBuffer datagram = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        final DatagramPacket packet = new DatagramPacket(bytes, bytes.length);
        final CRC32 crc = new CRC32();
        final BitSet seen = new BitSet(count);
        final long[] sendTimes = new long[count];
        long received = 0;
        long duplicates = 0;
        long late = 0;
        long corrupted = 0;
        long highest = -1;
        final long rcvbufErrorsBefore = udpReceiveBufferErrors();
        long lastArrivalNs = 0;
        long maxGapNs = 0;
        try (DatagramSocket socket = new DatagramSocket(null))
        {
            socket.setReceiveBufferSize(8 * 1024 * 1024);
            socket.bind(new InetSocketAddress(required(args, "bind"), Integer.parseInt(required(args, "port"))));
            socket.setSoTimeout(quietMs);
            System.out.println("READY " + socket.getLocalSocketAddress());
            System.out.flush();
            while (true)
            {
                try
                {
                    socket.receive(packet);
                }
                catch (final SocketTimeoutException ex)
                {
                    if (received > 0)
                    {
                        break; // the stream went quiet and its end markers were all lost
                    }
                    continue;
                }
                final long nowNs = System.nanoTime();
                final int length = packet.getLength();
                if (length < HEADER_LENGTH)
                {
                    corrupted++;
                    continue;
                }
                final long seq = datagram.getLong(0);
                if (seq == END_MARKER && length == HEADER_LENGTH)
                {
                    break;
                }
                received++;
                if (seq < 0 || seq >= count || checksum(crc, bytes, length) != datagram.getInt(8))
                {
                    corrupted++;
                    continue;
                }
                if (lastArrivalNs != 0)
                {
                    maxGapNs = Math.max(maxGapNs, nowNs - lastArrivalNs);
                }
                lastArrivalNs = nowNs;
                if (seen.get((int)seq))
                {
                    duplicates++;
                    continue;
                }
                seen.set((int)seq);
                sendTimes[(int)seq] = datagram.getLong(SEND_TIME_OFFSET);
                if (seq < highest)
                {
                    late++;
                }
                highest = Math.max(highest, seq);
            }
        }
        int longestMissingRun = 0;
        long missingSpanNs = 0;
        for (int missing = seen.nextClearBit(0); missing < count; )
        {
            final int next = seen.nextSetBit(missing) < 0 ? count : seen.nextSetBit(missing);
            if (next - missing > longestMissingRun)
            {
                longestMissingRun = next - missing;
                // From the last datagram that arrived before the run to the first after it, by their send times.
                missingSpanNs = missing > 0 && next < count ? sendTimes[next] - sendTimes[missing - 1] : 0;
            }
            missing = seen.nextClearBit(next);
        }
        final long rcvbufErrors = udpReceiveBufferErrors() - rcvbufErrorsBefore;
        System.out.println("PROBE sent=" + count + " received=" + received + " unique=" + seen.cardinality() +
            " rcvbufErrors=" + rcvbufErrors +
            " lost=" + (count - seen.cardinality()) + " duplicates=" + duplicates + " late=" + late + " corrupted=" +
            corrupted + " longestMissingRun=" + longestMissingRun + " missingSpanUs=" + TimeUnit.NANOSECONDS.toMicros(missingSpanNs) +
            " maxGapUs=" + TimeUnit.NANOSECONDS.toMicros(maxGapNs));
    }
}
