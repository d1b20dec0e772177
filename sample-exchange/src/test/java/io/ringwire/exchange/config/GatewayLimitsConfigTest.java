package io.ringwire.exchange.config;

import io.ringwire.exchange.gateway.TransportLimits;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gateway's config file sizes each session's reply log ({@code limits.reply-log-bytes}): the
 * written file carries the default, a power of two is taken, and any other size is refused naming
 * the file and the rule.
 */
class GatewayLimitsConfigTest
{
    @TempDir
    Path directory;

    private String gatewayText;

    @BeforeEach
    void write() throws Exception
    {
        DemoRoleFiles.write(directory, 2);
        gatewayText = Files.readString(directory.resolve("gateway.conf"));
    }

    private RoleConfig gatewayWithReplyLog(final String value) throws Exception
    {
        final Path file = directory.resolve("gateway.conf");
        Files.writeString(file, gatewayText.replaceAll("(?m)^limits\\.reply-log-bytes.*$",
            "limits.reply-log-bytes = " + value).replaceAll("(?m)^limits\\.reply-backlog-bytes.*$", ""));
        return RoleConfig.read(file);
    }

    @Test
    void theWrittenFileCarriesTheDefaultAndAPowerOfTwoIsTaken() throws Exception
    {
        assertTrue(gatewayText.contains("limits.reply-log-bytes"), gatewayText);
        assertEquals(TransportLimits.DEFAULT_REPLY_LOG_BYTES,
            RoleConfig.read(directory.resolve("gateway.conf")).gateway().transportLimits().replyLogBytes());
        assertEquals(1 << 16, gatewayWithReplyLog("65536").gateway().transportLimits().replyLogBytes());
    }

    @Test
    void aSizeThatIsNoPowerOfTwoOrOutOfRangeIsRefusedNamingTheFile()
    {
        for (final String bad : new String[]{ "5000", "2048", "4096", "2147483648" })
        {
            final Exception refused = assertThrows(IllegalArgumentException.class, () -> gatewayWithReplyLog(bad));
            assertTrue(refused.getMessage().contains("gateway.conf") && refused.getMessage().contains("reply-log-bytes"),
                bad + ": " + refused.getMessage());
        }
    }

    @Test
    void aReplyBacklogLargerThanHalfTheReplyLogIsRefusedAndWithoutItsLineTheBacklogFitsTheLog() throws Exception
    {
        assertEquals(1 << 15, gatewayWithReplyLog("65536").gateway().transportLimits().maxReplyBacklogBytes(),
            "the default backlog, halved to fit the log");
        final Path file = directory.resolve("gateway.conf");
        Files.writeString(file, gatewayText.replaceAll("(?m)^limits\\.reply-backlog-bytes.*$",
            "limits.reply-backlog-bytes = " + TransportLimits.DEFAULT_REPLY_LOG_BYTES));
        final Exception refused = assertThrows(IllegalArgumentException.class, () -> RoleConfig.read(file));
        assertTrue(refused.getMessage().contains("gateway.conf") && refused.getMessage().contains("at most half"),
            refused.getMessage());
    }

    @Test
    void aReplyBacklogThatIsNoPowerOfTwoIsRefusedRatherThanRoundedDown() throws Exception
    {
        final Path file = directory.resolve("gateway.conf");
        Files.writeString(file, gatewayText.replaceAll("(?m)^limits\\.reply-backlog-bytes.*$",
            "limits.reply-backlog-bytes = 300000"));
        final Exception refused = assertThrows(IllegalArgumentException.class, () -> RoleConfig.read(file));
        assertTrue(refused.getMessage().contains("limits.reply-backlog-bytes") &&
            refused.getMessage().contains("power of two"), refused.getMessage());
        Files.writeString(file, gatewayText.replaceAll("(?m)^limits\\.reply-backlog-bytes.*$",
            "limits.reply-backlog-bytes = 262144"));
        assertEquals(262144, RoleConfig.read(file).gateway().transportLimits().maxReplyBacklogBytes());
    }

    @Test
    void twoLinesNamingOneEndpointAreRefusedNamingTheLaterLine() throws Exception
    {
        final Matcher replies = Pattern.compile("replies ([^,\\s]+)").matcher(gatewayText);
        assertTrue(replies.find(), gatewayText);
        final String first = replies.group(1);
        assertTrue(replies.find(), "two sessions: " + gatewayText);
        final String second = replies.group(1);
        final Path file = directory.resolve("gateway.conf");
        Files.writeString(file, gatewayText.replace("replies " + second, "replies " + first));
        final Exception shared = assertThrows(IllegalArgumentException.class, () -> RoleConfig.read(file));
        assertTrue(shared.getMessage().contains(first) && shared.getMessage().contains("a port of its own"),
            shared.getMessage());

        final Matcher orders = Pattern.compile("(?m)^endpoint\\.orders\\s*=\\s*(\\S+)")
            .matcher(gatewayText);
        assertTrue(orders.find(), gatewayText);
        Files.writeString(file, gatewayText.replace("replies " + second, "replies " + orders.group(1)));
        final Exception gatewaysOwn = assertThrows(IllegalArgumentException.class, () -> RoleConfig.read(file));
        assertTrue(gatewaysOwn.getMessage().contains("endpoint.orders"), gatewaysOwn.getMessage());
    }

    @Test
    void aConnectionTableSmallerThanTheMemberEndpointAdmitsIsRefused() throws Exception
    {
        final Path file = directory.resolve("gateway.conf");
        Files.writeString(file, gatewayText.replaceAll("(?m)^limits\\.max-connections.*$",
            "limits.max-connections = 3"));
        final Exception refused = assertThrows(IllegalArgumentException.class, () -> RoleConfig.read(file));
        assertTrue(refused.getMessage().contains("limits.max-connections") &&
            refused.getMessage().contains("fewer than the 4 connections"), refused.getMessage());
    }
}
