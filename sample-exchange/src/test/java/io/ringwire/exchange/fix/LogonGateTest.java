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

    @Test
    void aLogonThatRepeatsAnIdentityFieldIsRefusedWhicheverCopyIsRight()
    {
        assertEquals("a Logon that repeats tag 554", gate.check(
            message("35=A|34=1|49=M1|56=DOOR|52=20261130-12:00:00|98=0|108=30|554=wrong|554=secret-1|")));
        assertEquals("a Logon that repeats tag 49", gate.check(
            message("35=A|34=1|49=M3|49=M1|56=DOOR|52=20261130-12:00:00|98=0|108=30|554=secret-1|")));
    }

    @Test
    void rawDataThatHoldsSohIsSkippedByItsLengthNotReadAsFields()
    {
        final String raw = "x\u0001554=secret-1";
        assertEquals("wrong password", gate.check(message("35=A|34=1|49=M1|56=DOOR|52=20261130-12:00:00|98=0|108=30|" +
            "95=" + raw.length() + "|96=" + raw + "|554=guess|")));
        assertNull(gate.check(message("35=A|34=1|49=M1|56=DOOR|52=20261130-12:00:00|98=0|108=30|" +
            "95=" + raw.length() + "|96=" + raw + "|554=secret-1|")));
    }

    @Test
    void messagesOtherThanALogonPass()
    {
        assertNull(gate.check(message("35=0|34=2|49=M1|56=DOOR|52=20261130-12:00:00|")));
        assertNull(gate.check(message("35=D|34=3|49=M3|56=DOOR|52=20261130-12:00:00|11=X|554=none|")));
    }
}
