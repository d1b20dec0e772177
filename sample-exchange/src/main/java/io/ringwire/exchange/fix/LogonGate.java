package io.ringwire.exchange.fix;

import org.apache.mina.core.filterchain.IoFilterAdapter;
import org.apache.mina.core.session.IoSession;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
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
    private static final char SOH = FixFields.SOH;
    private static final int MSG_TYPE = 35;
    private static final int SENDER_COMP_ID = 49;
    private static final int TARGET_COMP_ID = 56;
    private static final int RAW_DATA_LENGTH = 95;
    private static final int RAW_DATA = 96;
    private static final int PASSWORD = 554;
    private static final int RESET_SEQ_NUM_FLAG = 141;

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
        final LogonFields fields = LogonFields.of(message);
        if (null == fields)
        {
            return null;
        }
        if (null != fields.refusal)
        {
            return fields.refusal;
        }
        final String expected = passwordOf.apply(fields.sender);
        if (null == expected || !doorCompId.equals(fields.target))
        {
            return "no such member here";
        }
        if (null == fields.password || !MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8),
            fields.password.getBytes(StandardCharsets.UTF_8)))
        {
            return "wrong password";
        }
        return null;
    }

    /**
     * What a Logon says of who sends it, read field by field with QuickFIX/J's own reading of a
     * tag (a decimal number as {@link Integer#parseInt} takes it, so "049" and "+49" are 49).
     * QuickFIX/J finds a connection's session by the first SenderCompID and TargetCompID in the text
     * and acts on the last MsgType and the last of each field it parses; so any message with a
     * MsgType A anywhere is taken for a Logon, and a Logon in which MsgType, SenderCompID,
     * TargetCompID, Password or ResetSeqNumFlag appears twice, or that carries RawData (whose
     * length-delimited value two readers could cut differently), is refused whatever its copies
     * say: there is then one reading of it, the same as QuickFIX/J's.
     */
    private static final class LogonFields implements FixFields.Reader
    {
        String sender;
        String target;
        String password;
        String refusal;
        private boolean logon;
        private int msgTypes;
        private int senders;
        private int targets;
        private int passwords;
        private int resets;
        private boolean rawData;
        private boolean garbled;

        /** @return the Logon's fields, or null when no MsgType of the message is A. */
        static LogonFields of(final String message)
        {
            final LogonFields fields = new LogonFields();
            FixFields.read(message, fields);
            if (!fields.logon)
            {
                return null;
            }
            if (fields.garbled || fields.rawData)
            {
                fields.refusal = fields.garbled ? "a Logon with a field that is not tag=value" : "a Logon with RawData";
            }
            else if (fields.msgTypes != 1 || fields.senders != 1 || fields.targets != 1 || fields.passwords > 1 ||
                fields.resets > 1)
            {
                fields.refusal = "a Logon that repeats MsgType, SenderCompID, TargetCompID, Password or " +
                    "ResetSeqNumFlag";
            }
            return fields;
        }

        @Override
        public void field(final int tag, final String message, final int valueFrom, final int valueTo)
        {
            switch (tag)
            {
                case MSG_TYPE ->
                {
                    msgTypes++;
                    logon |= valueTo == valueFrom + 1 && message.charAt(valueFrom) == 'A';
                }
                case SENDER_COMP_ID ->
                {
                    senders++;
                    sender = message.substring(valueFrom, valueTo);
                }
                case TARGET_COMP_ID ->
                {
                    targets++;
                    target = message.substring(valueFrom, valueTo);
                }
                case PASSWORD ->
                {
                    passwords++;
                    password = message.substring(valueFrom, valueTo);
                }
                case RESET_SEQ_NUM_FLAG -> resets++;
                case RAW_DATA_LENGTH, RAW_DATA -> rawData = true;
                case FixFields.NOT_A_TAG -> garbled = true;
                default ->
                {
                }
            }
        }
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
}
