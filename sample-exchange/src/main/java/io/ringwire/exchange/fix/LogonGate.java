package io.ringwire.exchange.fix;

import org.apache.mina.core.filterchain.IoFilterAdapter;
import org.apache.mina.core.session.IoSession;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Checks each Logon's credentials before QuickFIX/J's session sees it. QuickFIX/J applies a Logon's
 * ResetSeqNumFlag (141=Y: both sequence numbers back to 1 and the message store emptied) before it
 * asks the application whether the Logon is accepted, and counts a refused Logon at the expected
 * MsgSeqNum as received: so anyone who knows a member's SenderCompID could wipe that member's
 * session or push its expected sequence number past the member's own, and lock it out, without
 * its password. This filter sits after the FIX decoder on every connection and closes the
 * connection on a Logon whose SenderCompID, TargetCompID and Password (554) are not a configured
 * member's, so such a Logon never reaches the session. Other messages pass; QuickFIX/J itself
 * refuses anything but a Logon as a connection's first message.
 *
 * <p>Threading: QuickFIX/J's I/O threads; it keeps no state of its own.
 */
final class LogonGate extends IoFilterAdapter
{
    private static final char SOH = '\u0001';
    private static final int MSG_TYPE = 35;
    private static final int SENDER_COMP_ID = 49;
    private static final int TARGET_COMP_ID = 56;
    private static final int RAW_DATA_LENGTH = 95;
    private static final int RAW_DATA = 96;
    private static final int PASSWORD = 554;
    private static final int CHECKSUM = 10;

    /** What the gate learns of each Logon it refuses. */
    @FunctionalInterface
    interface Refusals
    {
        /**
         * @param senderCompId the SenderCompID the Logon gave, or null.
         * @param why          why it was refused.
         */
        void refused(String senderCompId, String why);
    }

    private final String doorCompId;
    private final Function<String, String> passwordOf;
    private final Refusals refusals;

    /**
     * @param doorCompId the door's CompID: a Logon's TargetCompID.
     * @param passwordOf a member's password (its session token) by SenderCompID, or null for none.
     * @param refusals   told of each Logon refused.
     */
    LogonGate(final String doorCompId, final Function<String, String> passwordOf, final Refusals refusals)
    {
        this.doorCompId = doorCompId;
        this.passwordOf = passwordOf;
        this.refusals = refusals;
    }

    @Override
    public void messageReceived(final NextFilter nextFilter, final IoSession session, final Object message)
        throws Exception
    {
        if (message instanceof String text)
        {
            final String refusal = check(text);
            if (null != refusal)
            {
                refusals.refused(field(text, SENDER_COMP_ID), refusal);
                session.closeNow();
                return;
            }
        }
        nextFilter.messageReceived(session, message);
    }

    /**
     * @param message one whole FIX message as the decoder gives it.
     * @return null when the message is not a Logon or is a member's with its password, else why not.
     */
    String check(final String message)
    {
        final Map<Integer, String> fields = logonFields(message);
        if (null == fields)
        {
            return null;
        }
        if (fields.containsKey(-1))
        {
            return "a Logon that repeats " + fields.get(-1);
        }
        final String sender = fields.get(SENDER_COMP_ID);
        final String expected = null == sender ? null : passwordOf.apply(sender);
        final String given = fields.get(PASSWORD);
        if (null == expected || !doorCompId.equals(fields.get(TARGET_COMP_ID)))
        {
            return "no such member here";
        }
        if (null == given || !MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8),
            given.getBytes(StandardCharsets.UTF_8)))
        {
            return "wrong password";
        }
        return null;
    }

    /**
     * @return the Logon's SenderCompID, TargetCompID and Password by tag (a repeated one under -1),
     *         or null when the message is not a Logon.
     */
    private static Map<Integer, String> logonFields(final String message)
    {
        final Map<Integer, String> fields = new HashMap<>();
        boolean logon = false;
        int rawDataLength = -1;
        int at = 0;
        final int length = message.length();
        while (at < length)
        {
            final int equals = message.indexOf('=', at);
            if (equals < 0)
            {
                break;
            }
            final int tag = parseNumber(message, at, equals);
            // RawData (96) may hold SOH: it runs for the length RawDataLength (95) gave.
            final int soh = tag == RAW_DATA && rawDataLength >= 0 ? Math.min(length, equals + 1 + rawDataLength) :
                message.indexOf(SOH, equals + 1);
            final int end = soh < 0 ? length : soh;
            final String value = message.substring(equals + 1, end);
            if (tag == MSG_TYPE)
            {
                if (!"A".equals(value))
                {
                    return null;
                }
                logon = true;
            }
            else if (tag == RAW_DATA_LENGTH)
            {
                rawDataLength = parseNumber(value, 0, value.length());
            }
            else if ((tag == SENDER_COMP_ID || tag == TARGET_COMP_ID || tag == PASSWORD) &&
                null != fields.putIfAbsent(tag, value))
            {
                fields.put(-1, "tag " + tag);
            }
            else if (tag == CHECKSUM)
            {
                break;
            }
            at = end + 1;
        }
        return logon ? fields : null;
    }

    /** @return the field's value, or null; for logging only. */
    private static String field(final String message, final int tag)
    {
        final String start = SOH + Integer.toString(tag) + "=";
        final int at = message.indexOf(start);
        if (at < 0)
        {
            return null;
        }
        final int end = message.indexOf(SOH, at + start.length());
        return message.substring(at + start.length(), end < 0 ? message.length() : end);
    }

    /** @return the decimal number in [from, to), or -1 when it is not one. */
    private static int parseNumber(final CharSequence text, final int from, final int to)
    {
        if (to <= from || to - from > 9)
        {
            return -1;
        }
        int value = 0;
        for (int i = from; i < to; i++)
        {
            final char c = text.charAt(i);
            if (c < '0' || c > '9')
            {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
