package io.ringwire.perf.perftest;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The messages of perftest's out-of-band TCP exchange (without rdma_cm), as perftest 6.06 (Debian's
 * {@code perftest 4.5+0.17}) writes and reads them. Every message has a fixed length, and each
 * exchange is one message each way: the client (the side given a server name) writes first, the
 * server reads first. In the order a run sends them:
 * <ol>
 *   <li>version: {@value #VERSION_LENGTH} bytes, the version as text, NUL-padded;</li>
 *   <li>system data, from version 5.32 on: the cycle buffer (the page size), then the cache line
 *       size, each a 32-bit big-endian integer in its own exchange; both sides go on with the larger
 *       of the two values;</li>
 *   <li>MTU, from version 5.1 on ({@value #MTU_LENGTH} bytes from 5.31 on): the port's active MTU as
 *       the decimal digit of its {@code ibv_mtu} value (1 = 256 bytes ... 5 = 4096), then NUL; both
 *       go on with the smaller;</li>
 *   <li>keys ({@link PerftestKeys}), exchanged several times as sync points: with a GID (always on
 *       RoCE) {@value #KEY_LENGTH} bytes of text, {@code lid:out_reads:qpn:psn:rkey:vaddr:} in
 *       4, 4, 6, 6, 8 and 16 lower-case hex digits, the sixteen GID bytes in two hex digits each
 *       followed by ':', the SRQ number in 8 hex digits and ':', then NUL;</li>
 *   <li>bandwidth report (ib_write_bw, at the end): message size and iterations as 64-bit
 *       big-endian integers (iterations 32-bit before 5.33), then the peak bandwidth, the average
 *       bandwidth and the message rate as big-endian IEEE doubles, each in its own exchange;</li>
 *   <li>{@code "done"} and NUL, written by each side after the last key exchange and read by
 *       neither.</li>
 * </ol>
 *
 * <p>The codec writes into and reads from caller-owned buffers at their position; it allocates only
 * to describe a refusal. Threading: stateless.
 */
public final class PerftestMessages
{
    /** The version this side claims, and whose exchange it speaks. */
    public static final String VERSION = "6.06";
    /** The oldest version perftest 6.06 itself accepts from a peer; older ones exchange differently. */
    public static final double OLDEST_COMPATIBLE_VERSION = 5.70;
    /** Length of the version message ({@code MAX_VERSION}). */
    public static final int VERSION_LENGTH = 16;
    /** Length of each system data message (a C int). */
    public static final int SYSTEM_DATA_LENGTH = 4;
    /** Length of the MTU message. */
    public static final int MTU_LENGTH = 2;
    /** Length of the key message with a GID ({@code KEY_MSG_SIZE_GID}): 107 characters and NUL. */
    public static final int KEY_LENGTH = 108;
    /** Length of each field of the bandwidth report (a C unsigned long, uint64_t or double). */
    public static final int REPORT_FIELD_LENGTH = 8;
    /** Fields of the bandwidth report: size, iterations, peak bandwidth, average bandwidth, message rate. */
    public static final int REPORT_FIELDS = 5;
    /** Length of the closing {@code "done"} with its NUL. */
    public static final int DONE_LENGTH = 5;
    /** The page size perftest sends as its cycle buffer on this platform. */
    public static final int DEFAULT_CYCLE_BUFFER = 4096;
    /** The cache line size perftest sends on x86-64. */
    public static final int DEFAULT_CACHE_LINE_SIZE = 64;

    /** Hex digits of each field before the GID: lid, out_reads, qpn, psn, rkey, vaddr. */
    private static final int[] HEAD_WIDTHS = { 4, 4, 6, 6, 8, 16 };
    private static final String[] HEAD_NAMES = { "lid", "out_reads", "qpn", "psn", "rkey", "vaddr" };
    private static final int SRQN_WIDTH = 8;
    private static final byte[] DONE = { 'd', 'o', 'n', 'e', 0 };

    private PerftestMessages()
    {
    }

    /**
     * Writes the version message.
     *
     * @param version the version text, at most {@value #VERSION_LENGTH} - 1 ASCII characters.
     * @param dst     receives {@value #VERSION_LENGTH} bytes.
     */
    public static void writeVersion(final String version, final ByteBuffer dst)
    {
        if (version.length() >= VERSION_LENGTH)
        {
            throw new IllegalArgumentException("a perftest version has at most " + (VERSION_LENGTH - 1) +
                " characters: " + version);
        }
        for (int i = 0; i < VERSION_LENGTH; i++)
        {
            dst.put(i < version.length() ? (byte)version.charAt(i) : 0);
        }
    }

    /**
     * Reads the version message.
     *
     * @param src holds {@value #VERSION_LENGTH} bytes.
     * @return the version text (before the first NUL).
     * @throws PerftestProtocolException when it has no NUL or is not a version number.
     */
    public static String readVersion(final ByteBuffer src)
    {
        final StringBuilder sb = new StringBuilder();
        boolean terminated = false;
        for (int i = 0; i < VERSION_LENGTH; i++)
        {
            final byte b = src.get();
            terminated |= b == 0;
            if (!terminated)
            {
                sb.append((char)(b & 0xFF));
            }
        }
        final String version = sb.toString();
        if (!terminated || !version.matches("[0-9]+(\\.[0-9]+)?"))
        {
            throw new PerftestProtocolException("perftest version message is not a NUL-terminated version number: '" +
                printable(version) + "'");
        }
        return version;
    }

    /**
     * @param version a version as {@link #readVersion} returns it.
     * @return its value as perftest compares versions (a decimal number: "6.1" is below "6.06").
     */
    public static double versionValue(final String version)
    {
        return Double.parseDouble(version);
    }

    /**
     * @param version the peer's version.
     * @throws PerftestProtocolException when it exchanges messages differently from this codec.
     */
    public static void requireCompatible(final String version)
    {
        if (versionValue(version) < OLDEST_COMPATIBLE_VERSION)
        {
            throw new PerftestProtocolException("perftest " + version + " is older than " + OLDEST_COMPATIBLE_VERSION +
                ", whose exchange this peer speaks (perftest " + VERSION + " refuses it too)");
        }
    }

    /**
     * Writes one system data message (cycle buffer or cache line size).
     *
     * @param value the value.
     * @param dst   receives {@value #SYSTEM_DATA_LENGTH} bytes.
     */
    public static void writeSystemData(final int value, final ByteBuffer dst)
    {
        dst.order(ByteOrder.BIG_ENDIAN).putInt(value);
    }

    /**
     * Reads one system data message.
     *
     * @param what what it carries, for a refusal ("cycle buffer").
     * @param src  holds {@value #SYSTEM_DATA_LENGTH} bytes.
     * @return the value.
     * @throws PerftestProtocolException when it is not positive.
     */
    public static int readSystemData(final String what, final ByteBuffer src)
    {
        final int value = src.order(ByteOrder.BIG_ENDIAN).getInt();
        if (value <= 0)
        {
            throw new PerftestProtocolException("perftest " + what + " is not positive: " + value);
        }
        return value;
    }

    /**
     * Writes the MTU message.
     *
     * @param mtuBytes 256, 512, 1024, 2048 or 4096.
     * @param dst      receives {@value #MTU_LENGTH} bytes.
     */
    public static void writeMtu(final int mtuBytes, final ByteBuffer dst)
    {
        final int code = mtuCode(mtuBytes);
        if (code < 0)
        {
            throw new IllegalArgumentException("not an RDMA path MTU: " + mtuBytes);
        }
        dst.put((byte)('0' + code)).put((byte)0);
    }

    /**
     * Reads the MTU message.
     *
     * @param src holds {@value #MTU_LENGTH} bytes.
     * @return the MTU in bytes.
     * @throws PerftestProtocolException when it is not an {@code ibv_mtu} digit and NUL.
     */
    public static int readMtu(final ByteBuffer src)
    {
        final byte digit = src.get();
        final byte nul = src.get();
        if (digit < '1' || digit > '5' || nul != 0)
        {
            throw new PerftestProtocolException("perftest MTU message is not an ibv_mtu digit 1 to 5 and NUL: bytes " +
                (digit & 0xFF) + ", " + (nul & 0xFF));
        }
        return 128 << (digit - '0');
    }

    /**
     * @param mtuBytes an MTU in bytes.
     * @return its {@code ibv_mtu} value (1 for 256 ... 5 for 4096), -1 when it has none.
     */
    public static int mtuCode(final int mtuBytes)
    {
        return switch (mtuBytes)
        {
            case 256 -> 1;
            case 512 -> 2;
            case 1024 -> 3;
            case 2048 -> 4;
            case 4096 -> 5;
            default -> -1;
        };
    }

    /**
     * Writes a key message with a GID.
     *
     * @param keys what to send.
     * @param dst  receives {@value #KEY_LENGTH} bytes.
     */
    public static void writeKeys(final PerftestKeys keys, final ByteBuffer dst)
    {
        final long[] head = { keys.lid(), keys.outReads(), keys.queuePairNumber(), keys.psn(),
            keys.rkey() & 0xFFFF_FFFFL, keys.virtualAddress() };
        for (int f = 0; f < HEAD_WIDTHS.length; f++)
        {
            putHex(head[f], HEAD_WIDTHS[f], dst);
            dst.put((byte)':');
        }
        for (int i = 0; i < 16; i++)
        {
            putHex(gidByte(keys, i), 2, dst);
            dst.put((byte)':');
        }
        putHex(keys.srqNumber() & 0xFFFF_FFFFL, SRQN_WIDTH, dst);
        dst.put((byte)':').put((byte)0);
    }

    /**
     * Reads a key message with a GID, as {@link #writeKeys} lays it out, field by field.
     *
     * @param src holds {@value #KEY_LENGTH} bytes.
     * @return the keys.
     * @throws PerftestProtocolException naming the first field that is not as perftest writes it.
     */
    public static PerftestKeys readKeys(final ByteBuffer src)
    {
        final int start = src.position();
        final byte[] text = new byte[KEY_LENGTH];
        src.get(text);
        final long[] head = new long[HEAD_WIDTHS.length];
        int at = 0;
        for (int f = 0; f < HEAD_WIDTHS.length; f++)
        {
            head[f] = hexField(text, at, HEAD_WIDTHS[f], HEAD_NAMES[f]);
            at += HEAD_WIDTHS[f] + 1;
        }
        long gidHigh = 0;
        long gidLow = 0;
        for (int i = 0; i < 16; i++)
        {
            final long b = hexField(text, at, 2, "gid[" + i + "]");
            at += 3;
            if (i < 8)
            {
                gidHigh = gidHigh << 8 | b;
            }
            else
            {
                gidLow = gidLow << 8 | b;
            }
        }
        final long srqn = hexField(text, at, SRQN_WIDTH, "srqn");
        at += SRQN_WIDTH + 1;
        if (at != KEY_LENGTH - 1 || text[at] != 0)
        {
            throw new PerftestProtocolException("perftest key message does not end in NUL at byte " + at + ": '" +
                printable(text) + "' (read at offset " + start + ")");
        }
        return new PerftestKeys((int)head[0], (int)head[1], (int)head[2], (int)head[3], (int)head[4], head[5],
            gidHigh, gidLow, (int)srqn);
    }

    /**
     * Writes one field of the bandwidth report as an integer (size, iterations).
     *
     * @param value the value.
     * @param dst   receives {@value #REPORT_FIELD_LENGTH} bytes.
     */
    public static void writeReportLong(final long value, final ByteBuffer dst)
    {
        dst.order(ByteOrder.BIG_ENDIAN).putLong(value);
    }

    /**
     * Writes one field of the bandwidth report as a double (peak, average, message rate).
     *
     * @param value the value.
     * @param dst   receives {@value #REPORT_FIELD_LENGTH} bytes.
     */
    public static void writeReportDouble(final double value, final ByteBuffer dst)
    {
        dst.order(ByteOrder.BIG_ENDIAN).putDouble(value);
    }

    /**
     * @param src holds {@value #REPORT_FIELD_LENGTH} bytes.
     * @return the integer field.
     */
    public static long readReportLong(final ByteBuffer src)
    {
        return src.order(ByteOrder.BIG_ENDIAN).getLong();
    }

    /**
     * @param src holds {@value #REPORT_FIELD_LENGTH} bytes.
     * @return the double field.
     */
    public static double readReportDouble(final ByteBuffer src)
    {
        return src.order(ByteOrder.BIG_ENDIAN).getDouble();
    }

    /**
     * Writes the closing message.
     *
     * @param dst receives {@value #DONE_LENGTH} bytes.
     */
    public static void writeDone(final ByteBuffer dst)
    {
        dst.put(DONE);
    }

    private static long gidByte(final PerftestKeys keys, final int i)
    {
        final long half = i < 8 ? keys.gidHigh() : keys.gidLow();
        return half >>> (56 - 8 * (i & 7)) & 0xFF;
    }

    private static void putHex(final long value, final int width, final ByteBuffer dst)
    {
        for (int shift = 4 * (width - 1); shift >= 0; shift -= 4)
        {
            dst.put((byte)Character.forDigit((int)(value >>> shift) & 0xF, 16));
        }
    }

    private static long hexField(final byte[] text, final int at, final int width, final String field)
    {
        long value = 0;
        for (int i = 0; i < width; i++)
        {
            final int c = text[at + i];
            final int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (digit < 0)
            {
                throw new PerftestProtocolException("perftest key message: field " + field + " at byte " + at +
                    " is not " + width + " lower-case hex digits: '" + printable(text) + "'");
            }
            value = value << 4 | digit;
        }
        if (text[at + width] != ':')
        {
            throw new PerftestProtocolException("perftest key message: field " + field + " at byte " + at +
                " is not followed by ':' after " + width + " hex digits: '" + printable(text) + "'");
        }
        return value;
    }

    private static String printable(final byte[] text)
    {
        final StringBuilder sb = new StringBuilder(text.length);
        for (final byte b : text)
        {
            sb.append((char)(b & 0xFF));
        }
        return printable(sb.toString());
    }

    private static String printable(final String text)
    {
        final StringBuilder sb = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c >= 0x20 && c < 0x7F)
            {
                sb.append(c);
            }
            else
            {
                sb.append(String.format("\\x%02x", (int)c));
            }
        }
        return sb.toString();
    }
}
