package io.ringwire.exchange.fix;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A FIX connection written by hand, byte by byte, for what a library would never send: bad
 * checksums, wrong body lengths, missing tags, unknown message types.
 */
final class RawFixConnection implements AutoCloseable
{
    private static final char SOH = '\u0001';
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HH:mm:ss.SSS");

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final StringBuilder pending = new StringBuilder();
    private final String sender;
    private final String target;
    private int nextSeq = 1;

    RawFixConnection(final int port, final String sender, final String target) throws IOException
    {
        this(port, sender, target, 0);
    }

    /**
     * @param receiveBuffer the socket's receive buffer in bytes, set before it connects (a small one
     *                      makes a member that stops reading hold the door's writes back sooner);
     *                      0 for the system's.
     */
    RawFixConnection(final int port, final String sender, final String target, final int receiveBuffer)
        throws IOException
    {
        socket = new Socket();
        if (receiveBuffer > 0)
        {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.connect(new java.net.InetSocketAddress("127.0.0.1", port));
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        in = socket.getInputStream();
        this.sender = sender;
        this.target = target;
    }

    /** @return the body, from 35= up to its last field, standard header included. */
    String body(final String msgType, final String fields)
    {
        return "35=" + msgType + SOH + "34=" + nextSeq++ + SOH + "49=" + sender + SOH + "56=" + target + SOH + "52=" +
            TIME.format(ZonedDateTime.now(ZoneOffset.UTC)) + SOH + fields.replace('|', SOH);
    }

    /** Sends a well-formed message. */
    void send(final String msgType, final String fields) throws IOException
    {
        sendRaw(frame(body(msgType, fields), 0, false));
    }

    /**
     * @param lengthError added to BodyLength (9).
     * @param badChecksum whether CheckSum (10) is wrong.
     */
    static String frame(final String body, final int lengthError, final boolean badChecksum)
    {
        final String head = "8=FIX.4.4" + SOH + "9=" + (body.length() + lengthError) + SOH;
        int sum = 0;
        for (final byte b : (head + body).getBytes(StandardCharsets.US_ASCII))
        {
            sum += b & 0xFF;
        }
        return head + body + "10=" + String.format("%03d", (sum + (badChecksum ? 1 : 0)) % 256) + SOH;
    }

    void sendRaw(final String message) throws IOException
    {
        out.write(message.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** Sets the next message's MsgSeqNum (34). */
    void sequence(final int next)
    {
        nextSeq = next;
    }

    /** Takes back a sequence number a garbled message used, as its sender must (the receiver never saw it). */
    void reuseSequence()
    {
        nextSeq--;
    }

    /** @return the next message's fields by tag, or null when none came within the timeout. */
    Map<Integer, String> receive(final Duration timeout) throws IOException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final byte[] chunk = new byte[4096];
        while (true)
        {
            final int end = messageEnd();
            if (end > 0)
            {
                final String message = pending.substring(0, end);
                pending.delete(0, end);
                final Map<Integer, String> fields = new LinkedHashMap<>();
                for (final String field : message.split(String.valueOf(SOH)))
                {
                    final int equals = field.indexOf('=');
                    fields.put(Integer.parseInt(field.substring(0, equals)), field.substring(equals + 1));
                }
                return fields;
            }
            final long leftMs = (deadline - System.nanoTime()) / 1_000_000;
            if (leftMs <= 0)
            {
                return null;
            }
            socket.setSoTimeout((int)Math.max(1, leftMs));
            try
            {
                final int read = in.read(chunk);
                if (read < 0)
                {
                    return null;
                }
                pending.append(new String(chunk, 0, read, StandardCharsets.US_ASCII));
            }
            catch (final java.net.SocketTimeoutException ex)
            {
                return null;
            }
        }
    }

    /** @return the next message other than a Heartbeat, or null. */
    Map<Integer, String> receiveSkippingHeartbeats(final Duration timeout) throws IOException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        Map<Integer, String> message;
        do
        {
            message = receive(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        }
        while (null != message && "0".equals(message.get(35)) && !message.containsKey(112));
        return message;
    }

    /**
     * Reads and drops what the door sent until it closes the connection.
     *
     * @return whether it closed it (an end of stream or a reset) within the timeout.
     */
    boolean awaitClosedByPeer(final Duration timeout) throws IOException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final byte[] chunk = new byte[1 << 16];
        while (true)
        {
            final long leftMs = (deadline - System.nanoTime()) / 1_000_000;
            if (leftMs <= 0)
            {
                return false;
            }
            socket.setSoTimeout((int)Math.max(1, leftMs));
            try
            {
                if (in.read(chunk) < 0)
                {
                    return true;
                }
            }
            catch (final java.net.SocketTimeoutException ex)
            {
                return false;
            }
            catch (final java.net.SocketException ex)
            {
                return true; // reset: the door closed it with our requests unread
            }
        }
    }

    /**
     * Sends a Heartbeat every 10 ms until a send fails: the door closed the connection (a reset, or
     * a broken pipe).
     *
     * @return whether one failed within the timeout.
     */
    boolean sendsFailWithin(final Duration timeout) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline)
        {
            try
            {
                send("0", "");
            }
            catch (final IOException ex)
            {
                return true;
            }
            Thread.sleep(10);
        }
        return false;
    }

    private int messageEnd()
    {
        final int checksum = pending.indexOf(SOH + "10=");
        if (checksum < 0 || pending.length() < checksum + 8)
        {
            return -1;
        }
        return checksum + 8;
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
    }
}
