package io.ringwire.exchange.fix;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * What the logon gate lets through to QuickFIX/J's session: a member's Logon with its own password,
 * and every message that is not a Logon. It reads the decoded message as the FIX decoder hands it.
 */
class LogonGateTest
{
    private final LogonGate gate = new LogonGate("DOOR", Map.of("M1", "secret-1", "M2", "secret-2")::get,
        (sender, why) -> { });

    private static String message(final String fields)
    {
        final String body = fields.replace('|', '\u0001');
        return RawFixConnection.frame(body, 0, false);
    }

    @Test
    void aMembersLogonWithItsOwnPasswordPasses()
    {
        assertNull(gate.check(message("35=A|34=1|49=M1|56=DOOR|52=20261130-12:00:00|98=0|108=30|554=secret-1|")));
        assertNull(gate.check(message("35=A|34=7|49=M2|56=DOOR|52=20261130-12:00:00|98=0|108=30|141=Y|554=secret-2|")));
    }

    @Test
    void aLogonWithAnotherMembersPasswordOrNoneOrForAnotherTargetIsRefused()
    {
        assertEquals("wrong password",
            gate.check(message("35=A|34=1|49=M1|56=DOOR|52=20261130-12:00:00|98=0|108=30|554=secret-2|")));
        assertEquals("wrong password", gate.check(message("35=A|34=1|49=M1|56=DOOR|52=20261130-12:00:00|98=0|108=30|")));
        assertEquals("wrong password",
            gate.check(message("35=A|34=1|49=M1|56=DOOR|52=20261130-12:00:00|98=0|108=30|554=secret-1x|")));
        assertEquals("no such member here",
            gate.check(message("35=A|34=1|49=M3|56=DOOR|52=20261130-12:00:00|98=0|108=30|554=secret-1|")));
        assertEquals("no such member here",
            gate.check(message("35=A|34=1|49=M1|56=OTHER|52=20261130-12:00:00|98=0|108=30|554=secret-1|")));
    }

    private static final String REPEATS = "a Logon that repeats MsgType, SenderCompID, TargetCompID, Password or ResetSeqNumFlag";

    @Test
    void aLogonThatRepeatsAnIdentityFieldIsRefusedWhicheverCopyIsRight()
    {
        assertEquals(REPEATS, gate.check(
            message("35=A|34=1|49=M1|56=DOOR|52=20261130-12:00:00|98=0|108=30|554=wrong|554=secret-1|")));
        assertEquals(REPEATS, gate.check(
            message("35=A|34=1|49=M3|49=M1|56=DOOR|52=20261130-12:00:00|98=0|108=30|554=secret-1|")));
        assertEquals(REPEATS, gate.check(
            message("35=A|34=1|49=M1|56=DOOR|52=20261130-12:00:00|98=0|108=30|141=N|141=Y|554=secret-1|")));
    }

    @Test
    void aLogonDisguisedBehindAnotherMsgTypeOrAnotherSpellingOfATagIsStillALogon()
    {
        // QuickFIX/J acts on the last MsgType it parses: a Heartbeat's 35 first, a Logon's after.
        assertEquals(REPEATS, gate.check(message("35=0|35=A|34=1|49=M2|56=DOOR|52=20261130-12:00:00|98=0|108=30|141=Y|")));
        // QuickFIX/J reads "+49" and "049" as tag 49: member M1's password under M2's name.
        assertEquals(REPEATS,
            gate.check(message("35=A|34=1|49=M1|56=DOOR|52=20261130-12:00:00|98=0|108=30|554=secret-1|+49=M2|")));
        assertEquals(REPEATS,
            gate.check(message("35=A|34=1|49=M1|56=DOOR|52=20261130-12:00:00|98=0|108=30|554=secret-1|049=M2|")));
        // One copy each, spelled differently: read as QuickFIX/J reads it.
        assertEquals("wrong password",
            gate.check(message("0035=A|34=1|+49=M2|56=DOOR|52=20261130-12:00:00|98=0|108=30|554=secret-1|")));
        assertEquals("a Logon with a field that is not tag=value",
            gate.check(message("35=A|34=1|49=M1|56=DOOR|52=20261130-12:00:00|98=0|108=30|x49=M2|554=secret-1|")));
    }

    @Test
    void aLogonWithRawDataIsRefusedSinceItsLengthDelimitedValueCouldHideFields()
    {
        final String raw = "x|554=secret-1";
        assertEquals("a Logon with RawData", gate.check(message("35=A|34=1|49=M1|56=DOOR|52=20261130-12:00:00|98=0|" +
            "108=30|95=" + raw.length() + "|96=" + raw + "|554=secret-1|")));
    }

    @Test
    void messagesOtherThanALogonPass()
    {
        assertNull(gate.check(message("35=0|34=2|49=M1|56=DOOR|52=20261130-12:00:00|")));
        assertNull(gate.check(message("35=D|34=3|49=M3|56=DOOR|52=20261130-12:00:00|11=X|554=none|")));
    }
}
