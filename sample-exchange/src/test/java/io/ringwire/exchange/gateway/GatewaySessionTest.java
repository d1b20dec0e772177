package io.ringwire.exchange.gateway;

import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.HeartbeatDecoder;
import io.ringwire.codecs.trading.LogonRejectReason;
import io.ringwire.codecs.trading.LogonResponseDecoder;
import io.ringwire.codecs.trading.LogonStatus;
import io.ringwire.codecs.trading.LogonEncoder;
import io.ringwire.codecs.trading.LogoutDecoder;
import io.ringwire.codecs.trading.MassCancelEncoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.MassCancelDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.ringwire.exchange.gateway.GatewayFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Logon, logout, heartbeats and cancel-on-disconnect.
 */
class GatewaySessionTest
{
    private final GatewayFixture fixture = new GatewayFixture();
    private final Gateway gateway = fixture.gateway;
    private final RecordingGatewayOutput output = fixture.output;

    private static LogonResponseDecoder logonResponse(final DirectBuffer message)
    {
        final MessageHeaderDecoder header = new MessageHeaderDecoder().wrap(message, 0);
        assertEquals(LogonResponseDecoder.TEMPLATE_ID, header.templateId(), "a logon response");
        return new LogonResponseDecoder().wrap(message, MessageHeaderDecoder.ENCODED_LENGTH, header.blockLength(),
            header.version());
    }

    private void assertMassCancelOfAccount(final DirectBuffer message, final long account, final long nowNs)
    {
        final MessageHeaderDecoder header = new MessageHeaderDecoder().wrap(message, 0);
        assertEquals(MassCancelDecoder.TEMPLATE_ID, header.templateId(), "a mass cancel to the engine");
        assertEquals(MessageHeaderDecoder.SCHEMA_VERSION, header.version());
        final MassCancelDecoder cancel = new MassCancelDecoder().wrap(message, MessageHeaderDecoder.ENCODED_LENGTH,
            header.blockLength(), header.version());
        assertEquals(account, cancel.account());
        assertEquals(0, cancel.instrumentId(), "every instrument");
        assertEquals(nowNs, cancel.receiveTime(), "stamped like any request");
    }

    @Test
    void logonWithTheRightTokenIsAcceptedAndBindsTheTransport()
    {
        assertEquals(Gateway.LOGGED_ON, fixture.logon(TRANSPORT_A, ID_A, TOKEN_A, START_NS));

        assertTrue(gateway.isLoggedOn(SESSION_A));
        assertFalse(gateway.isLoggedOn(SESSION_B));
        assertEquals(SESSION_A, output.lastToSession().sessionIndex());
        final LogonResponseDecoder response = logonResponse(output.lastToSession().buffer());
        assertEquals(LogonStatus.ACCEPTED, response.status());
        assertEquals(ID_A, response.sessionId());
        assertEquals(HEARTBEAT_MS, response.heartbeatIntervalMs());
        assertEquals(1, gateway.counters().logons());
        assertEquals(Gateway.FORWARDED, fixture.limitA(1, 1_000, 10, START_NS + 1));
    }

    @Test
    void aLogonBeforeTheSessionsReplyLinkIsUpIsLeftUnansweredBindsNothingAndTheNextOneLogsOn()
    {
        output.sessionsUnreachable = true;
        assertEquals(Gateway.LOGON_UNREACHABLE, fixture.logon(TRANSPORT_A, ID_A, TOKEN_A, START_NS));

        assertFalse(gateway.isLoggedOn(SESSION_A));
        assertTrue(output.toSessions.isEmpty(), "no answer that would be lost");
        assertTrue(output.toEngine.isEmpty(), "no session lost, so no cancel-on-disconnect");
        assertEquals(1, gateway.counters().logonsUnreachable());
        assertEquals(0, gateway.counters().logons());
        gateway.doWork(START_NS + 1_000_000);
        assertEquals(0, gateway.counters().cancelOnDisconnects());

        output.sessionsUnreachable = false;
        assertEquals(Gateway.LOGGED_ON, fixture.logon(TRANSPORT_A, ID_A, TOKEN_A, START_NS + 1_000_000_000L));
        assertEquals(LogonStatus.ACCEPTED, logonResponse(output.lastToSession().buffer()).status());
    }

    @Test
    void logonWithABadTokenIsRejectedWithBadCredentialsAndDoesNotLogOn()
    {
        assertEquals(Gateway.LOGON_REJECTED, fixture.logon(TRANSPORT_A, ID_A, "wrong", START_NS));

        assertFalse(gateway.isLoggedOn(SESSION_A));
        assertEquals(SESSION_A, output.lastToSession().sessionIndex());
        final LogonResponseDecoder response = logonResponse(output.lastToSession().buffer());
        assertEquals(LogonStatus.REJECTED, response.status());
        assertEquals(LogonRejectReason.BAD_CREDENTIALS, response.rejectReason());
        assertEquals(1, gateway.counters().badCredentials());
        assertEquals(-RejectReason.NOT_LOGGED_ON.value(), fixture.limitA(1, 1_000, 10, START_NS + 1));
        assertTrue(output.toEngine.isEmpty());
    }

    @Test
    void aTokensPrefixOrTheTokenWithMoreAfterItIsNotTheToken()
    {
        final String prefix = TOKEN_A.substring(0, TOKEN_A.length() - 1);
        // A second apart: within any logon rate.
        assertEquals(Gateway.LOGON_REJECTED, fixture.logon(TRANSPORT_A, ID_A, prefix, START_NS));
        assertEquals(Gateway.LOGON_REJECTED, fixture.logon(TRANSPORT_A, ID_A, TOKEN_A + "x", START_NS + 1_000_000_000L));
        assertEquals(Gateway.LOGON_REJECTED, fixture.logon(TRANSPORT_A, ID_A, "", START_NS + 2_000_000_000L));
        assertEquals(3, gateway.counters().badCredentials());
        assertFalse(gateway.isLoggedOn(SESSION_A));
        assertEquals(Gateway.LOGGED_ON, fixture.logon(TRANSPORT_A, ID_A, TOKEN_A, START_NS + 3_000_000_000L));
    }

    @Test
    void logonForAnUnknownSessionIsRefusedAndAnsweredOnlyOnTheConnectionsOwnSession()
    {
        assertEquals(Gateway.LOGON_REJECTED, fixture.logon(TRANSPORT_A, 99, TOKEN_A, START_NS));

        assertEquals(1, gateway.counters().unknownSessions());
        assertEquals(1, gateway.counters().impersonations());
        assertEquals(1, output.toSessions.size());
        assertEquals(SESSION_A, output.lastToSession().sessionIndex());
        assertEquals(LogonRejectReason.BAD_CREDENTIALS, logonResponse(output.lastToSession().buffer()).rejectReason());
        assertFalse(gateway.isLoggedOn(SESSION_A));
    }

    @Test
    void aConnectionOfOneMemberCannotLogOnAsAnotherEvenWithItsTokenAndTheVictimHearsNothing()
    {
        // TRANSPORT_B proved member B's key; it names A's session and holds A's token.
        assertEquals(Gateway.LOGON_REJECTED, fixture.logon(TRANSPORT_B, ID_A, TOKEN_A, START_NS));

        assertFalse(gateway.isLoggedOn(SESSION_A));
        assertEquals(1, gateway.counters().impersonations());
        assertTrue(output.toSessions.stream().allMatch(message -> message.sessionIndex() == SESSION_B),
            "only the asker hears the refusal");
        assertEquals(Gateway.LOGGED_ON, fixture.logon(TRANSPORT_A, ID_A, TOKEN_A, START_NS + 1), "A logs on still");
    }

    @Test
    void aConnectionTheTransportNeverAnnouncedIsDroppedUnanswered()
    {
        assertEquals(Gateway.UNIDENTIFIED, fixture.logon(4711, ID_A, TOKEN_A, START_NS));

        assertEquals(1, gateway.counters().unidentifiedTransports());
        assertTrue(output.toSessions.isEmpty());
        assertFalse(gateway.isLoggedOn(SESSION_A));
    }

    @Test
    void aConnectionOfNoMemberIdentityIsAskedToGo()
    {
        assertEquals(Gateway.UNKNOWN_SESSION, gateway.onTransportAvailable(4711, "engine", START_NS));

        assertEquals(java.util.List.of(4711), output.disconnected);
        assertEquals(1, gateway.counters().unknownIdentities());
    }

    @Test
    void logonAttemptsOverAConnectionsRateAreDroppedUnanswered()
    {
        for (int i = 0; i < 20; i++)
        {
            fixture.logon(TRANSPORT_A, ID_A, "wrong", START_NS);
        }
        assertEquals(TransportLimits.DEFAULT.logonBurst(), gateway.counters().badCredentials());
        assertEquals(20 - TransportLimits.DEFAULT.logonBurst(), gateway.counters().logonsThrottled());
        assertEquals(TransportLimits.DEFAULT.logonBurst(), output.toSessions.size());
        assertEquals(Gateway.LOGGED_ON, fixture.logon(TRANSPORT_A, ID_A, TOKEN_A, START_NS + 1_000_000_000L),
            "the rate refills");
    }

    @Test
    void requestsBeforeLogonThatUseUpTheConnectionsAnswersDoNotThrottleTheLogonBehindThem()
    {
        // As when a client's messaging writes what the last gateway left unread into its new
        // connection: its lost session's orders come first.
        for (int i = 0; i < 20; i++)
        {
            fixture.newOrder(TRANSPORT_A, i + 1, ACCOUNT_A, 1, OrdType.LIMIT, 1_000, 1, START_NS);
        }
        assertEquals(20 - TransportLimits.DEFAULT.logonBurst(), gateway.counters().repliesThrottled());
        assertEquals(Gateway.LOGGED_ON, fixture.logon(TRANSPORT_A, ID_A, TOKEN_A, START_NS));
        assertEquals(0, gateway.counters().logonsThrottled());
    }

    @Test
    void aConnectionThatDoesNotLogOnWithinTheTimeoutIsAskedToGoOnceAndALoggedOnOneStays()
    {
        fixture.logon(TRANSPORT_B, ID_B, TOKEN_B, START_NS);
        final long timeoutNs = TransportLimits.DEFAULT.logonTimeoutMs() * 1_000_000L;
        fixture.heartbeat(TRANSPORT_B, ID_B, START_NS + timeoutNs - 1); // B stays alive
        gateway.doWork(START_NS + timeoutNs);
        assertTrue(output.disconnected.isEmpty(), "not yet");
        gateway.doWork(START_NS + timeoutNs + 1);
        gateway.doWork(START_NS + timeoutNs + 2);
        assertEquals(java.util.List.of(TRANSPORT_A), output.disconnected);
        assertEquals(1, gateway.counters().logonTimeouts());
    }

    @Test
    void aConnectionWaitingToLogOnIsNotAskedToGoWhileTheGatewayReadsNoClient()
    {
        final long timeoutNs = TransportLimits.DEFAULT.logonTimeoutMs() * 1_000_000L;
        final long behindUntilNs = START_NS + 2 * timeoutNs;
        gateway.notReadingClients(behindUntilNs); // the engine's stream held the gateway this long
        gateway.doWork(behindUntilNs);
        gateway.doWork(behindUntilNs + timeoutNs);
        assertTrue(output.disconnected.isEmpty(),
            "its Logon may wait unread: the wait counts from the gateway's return");
        gateway.doWork(behindUntilNs + timeoutNs + 1);
        assertEquals(2, gateway.counters().logonTimeouts(), "both connections, neither logged on");
    }

    @Test
    void aConnectionWaitingToLogOnHasTheGatewaysOwnStallTakenOffItsWait()
    {
        final long timeoutNs = TransportLimits.DEFAULT.logonTimeoutMs() * 1_000_000L;
        final long gapNs = timeoutNs / 2;
        gateway.stalled(gapNs, START_NS + timeoutNs + 1);
        gateway.doWork(START_NS + timeoutNs + 1);
        gateway.doWork(START_NS + gapNs + timeoutNs);
        assertTrue(output.disconnected.isEmpty(), "the stall counts against no connection");
        gateway.doWork(START_NS + gapNs + timeoutNs + 1);
        assertEquals(2, gateway.counters().logonTimeouts(), "the time before and after the stall still counts");
    }

    @Test
    void aSessionLostToSilenceLongAfterItsConnectionCameKeepsTheConnectionToLogOnAgainOver()
    {
        final long lostAtNs = loseSessionAToSilenceAfterTwoLogonTimeouts();
        assertTrue(output.disconnected.isEmpty(), "the connection stays: its client, late, logs on again over it");
        assertEquals(0, gateway.counters().logonTimeouts());

        final long timeoutNs = TransportLimits.DEFAULT.logonTimeoutMs() * 1_000_000L;
        assertEquals(Gateway.LOGGED_ON, fixture.logon(TRANSPORT_A, ID_A, TOKEN_A, lostAtNs + timeoutNs / 2));
        gateway.doWork(lostAtNs + timeoutNs / 2 + 1);
        assertTrue(gateway.isLoggedOn(SESSION_A));
        assertTrue(output.disconnected.isEmpty());
    }

    @Test
    void aSessionLostToSilenceWhoseClientDoesNotLogOnAgainIsAskedToGoALogonTimeoutAfterTheLoss()
    {
        final long lostAtNs = loseSessionAToSilenceAfterTwoLogonTimeouts();
        final long timeoutNs = TransportLimits.DEFAULT.logonTimeoutMs() * 1_000_000L;
        gateway.doWork(lostAtNs + timeoutNs - HEARTBEAT_NS);
        assertTrue(output.disconnected.isEmpty(), "not yet");
        gateway.doWork(lostAtNs + timeoutNs + 1);
        assertEquals(java.util.List.of(TRANSPORT_A), output.disconnected);
        assertEquals(1, gateway.counters().logonTimeouts());
    }

    /**
     * Session A heartbeats for two logon timeouts after its connection came, the gateway's duty
     * cycle running, then goes silent until it is lost; B heartbeats until then.
     *
     * @return when it was lost.
     */
    private long loseSessionAToSilenceAfterTwoLogonTimeouts()
    {
        fixture.logOnBoth();
        final long timeoutNs = TransportLimits.DEFAULT.logonTimeoutMs() * 1_000_000L;
        long atNs = START_NS;
        for (; atNs < START_NS + 2 * timeoutNs; atNs += HEARTBEAT_NS / 2)
        {
            fixture.heartbeat(TRANSPORT_A, ID_A, atNs);
            fixture.heartbeat(TRANSPORT_B, ID_B, atNs);
            gateway.doWork(atNs);
        }
        while (gateway.isLoggedOn(SESSION_A))
        {
            atNs += HEARTBEAT_NS / 2;
            fixture.heartbeat(TRANSPORT_B, ID_B, atNs); // B stays on throughout
            gateway.doWork(atNs);
        }
        assertEquals(1, gateway.counters().heartbeatTimeouts());
        return atNs;
    }

    @Test
    void aConnectionThatNeverLogsOnCannotHoldItsSlotBySendingLogouts()
    {
        fixture.logon(TRANSPORT_B, ID_B, TOKEN_B, START_NS);
        final long timeoutNs = TransportLimits.DEFAULT.logonTimeoutMs() * 1_000_000L;
        for (long atNs = START_NS + timeoutNs / 2; atNs < START_NS + 3 * timeoutNs; atNs += timeoutNs / 2)
        {
            fixture.logout(TRANSPORT_A, ID_A, atNs); // A never logged on
            fixture.heartbeat(TRANSPORT_B, ID_B, atNs);
            gateway.doWork(atNs + 1);
        }
        assertEquals(java.util.List.of(TRANSPORT_A), output.disconnected, "asked to go at its logon timeout");
        assertEquals(1, gateway.counters().logonTimeouts());
    }

    @Test
    void aSlowConsumerLosesItsSessionAndItsConnectionAndTheOthersStay()
    {
        fixture.logOnBoth();
        gateway.onSlowConsumer(SESSION_A, START_NS + 1);
        gateway.doWork(START_NS + 2);

        assertFalse(gateway.isLoggedOn(SESSION_A));
        assertTrue(gateway.isLoggedOn(SESSION_B));
        assertEquals(java.util.List.of(TRANSPORT_A), output.disconnected);
        assertEquals(1, gateway.counters().slowConsumerDisconnects());
        assertMassCancelOfAccount(output.lastToEngine(), ACCOUNT_A, START_NS + 1);
    }

    @Test
    void lateRequestsOverAConnectionTheSessionLeftAreDroppedNotAnsweredAsNotLoggedOn()
    {
        fixture.logon(TRANSPORT_A, ID_A, TOKEN_A, START_NS);
        fixture.connect(TRANSPORT_A + 50, ID_A); // the connection it left, its frames still arriving
        final int replies = output.toSessions.size();

        assertEquals(-RejectReason.NOT_LOGGED_ON.value(), fixture.newOrder(TRANSPORT_A + 50, 1, ACCOUNT_A, 1,
            OrdType.LIMIT, 1_000, 10, START_NS + 1));
        final UnsafeBuffer garbage = new UnsafeBuffer(new byte[5]);
        assertEquals(-RejectReason.MALFORMED_MESSAGE.value(),
            gateway.onClientMessage(TRANSPORT_A + 50, garbage, 0, 5, START_NS + 2));

        assertEquals(replies, output.toSessions.size(), "nothing reaches the logged-on session's client");
        assertEquals(2, gateway.counters().fromLeftConnections());
        assertTrue(gateway.isLoggedOn(SESSION_A));

        // Unanswered, its malformed messages still count toward its limit of them.
        for (int i = 0; i < TransportLimits.DEFAULT.maxMalformed(); i++)
        {
            gateway.onClientMessage(TRANSPORT_A + 50, garbage, 0, 5, START_NS + 3 + i);
        }
        assertEquals(java.util.List.of(TRANSPORT_A + 50), output.disconnected, "the left connection is asked to go");
        assertTrue(gateway.isLoggedOn(SESSION_A), "the session stays on its live connection");
    }

    @Test
    void aSecondConnectionOfALoggedOnIdentityIsRefusedAndTheFirstKeepsTheSession()
    {
        fixture.logon(TRANSPORT_A, ID_A, TOKEN_A, START_NS);
        fixture.connect(TRANSPORT_A + 50, ID_A);

        assertEquals(Gateway.LOGON_REJECTED, fixture.logon(TRANSPORT_A + 50, ID_A, TOKEN_A, START_NS + 1));

        final LogonResponseDecoder response = logonResponse(output.lastToSession().buffer());
        assertEquals(LogonStatus.REJECTED, response.status());
        assertEquals(LogonRejectReason.ALREADY_LOGGED_ON, response.rejectReason());
        assertEquals(1, gateway.counters().alreadyLoggedOn());
        assertTrue(gateway.isLoggedOn(SESSION_A), "the first logon stands");
        assertEquals(-RejectReason.NOT_LOGGED_ON.value(), fixture.newOrder(TRANSPORT_A + 50, 1, ACCOUNT_A, 1,
            OrdType.LIMIT, 1_000, 10, START_NS + 2), "the second connection is not bound");
    }

    @Test
    void orderBeforeLogonIsRejectedNotLoggedOnWhenItsAccountNamesASession()
    {
        final int outcome = fixture.newOrder(TRANSPORT_A, 1, ACCOUNT_A, 1, OrdType.LIMIT, 1_000, 10, START_NS);

        assertEquals(-RejectReason.NOT_LOGGED_ON.value(), outcome);
        fixture.assertLastRejected(SESSION_A, RejectReason.NOT_LOGGED_ON);
        assertEquals(1, gateway.counters().notLoggedOn());
        assertTrue(output.toEngine.isEmpty());
    }

    @Test
    void orderBeforeLogonIsAnsweredOnItsConnectionsOwnSessionWhateverAccountItNames()
    {
        final int outcome = fixture.newOrder(TRANSPORT_B, 1, ACCOUNT_A, 1, OrdType.LIMIT, 1_000, 10, START_NS);

        assertEquals(-RejectReason.NOT_LOGGED_ON.value(), outcome);
        fixture.assertLastRejected(SESSION_B, RejectReason.NOT_LOGGED_ON);
        assertTrue(output.toSessions.stream().noneMatch(message -> message.sessionIndex() == SESSION_A),
            "never to the session the request names");
        assertTrue(output.toEngine.isEmpty());
    }

    @Test
    void logoutIsAnsweredUnbindsAndCancelsTheAccountsOrdersOnce()
    {
        fixture.logOnBoth();

        assertEquals(Gateway.LOGGED_OUT, fixture.logout(TRANSPORT_A, ID_A, START_NS + 5));

        assertFalse(gateway.isLoggedOn(SESSION_A));
        assertEquals(SESSION_A, output.lastToSession().sessionIndex());
        assertEquals(LogoutDecoder.TEMPLATE_ID, GatewayFixture.templateId(output.lastToSession().buffer()));
        assertEquals(1, output.toEngine.size());
        assertMassCancelOfAccount(output.lastToEngine(), ACCOUNT_A, START_NS + 5);
        assertEquals(Gateway.UNKNOWN_SESSION, fixture.logout(TRANSPORT_A, ID_A, START_NS + 6));
        gateway.onTransportLost(TRANSPORT_A, START_NS + 7);
        gateway.doWork(START_NS + 100 * HEARTBEAT_NS);
        assertEquals(2, output.toEngine.size(), "A's logout, then B's heartbeat timeout");
        assertEquals(ACCOUNT_B, lastMassCancelAccount());
        assertEquals(2, gateway.counters().cancelOnDisconnects());
    }

    private long lastMassCancelAccount()
    {
        final DirectBuffer message = output.lastToEngine();
        return new MassCancelDecoder().wrap(message, MessageHeaderDecoder.ENCODED_LENGTH,
            MassCancelDecoder.BLOCK_LENGTH, 2).account();
    }

    @Test
    void transportLossCancelsTheSessionsOrdersExactlyOnce()
    {
        fixture.logOnBoth();

        gateway.onTransportLost(TRANSPORT_A, START_NS + 9);
        gateway.onTransportLost(TRANSPORT_A, START_NS + 10);
        gateway.onSessionUnreachable(SESSION_A, START_NS + 11);

        assertFalse(gateway.isLoggedOn(SESSION_A));
        assertTrue(gateway.isLoggedOn(SESSION_B));
        assertEquals(1, output.toEngine.size());
        assertMassCancelOfAccount(output.lastToEngine(), ACCOUNT_A, START_NS + 9);
        assertEquals(1, gateway.counters().transportLosses());
        assertEquals(1, gateway.counters().cancelOnDisconnects());
    }

    @Test
    void unreachableSessionIsLostAndItsOrdersCanceledOnce()
    {
        fixture.logOnBoth();

        gateway.onSessionUnreachable(SESSION_B, START_NS + 3);
        gateway.onSessionUnreachable(SESSION_B, START_NS + 4);

        assertFalse(gateway.isLoggedOn(SESSION_B));
        assertEquals(1, output.toEngine.size());
        assertMassCancelOfAccount(output.lastToEngine(), ACCOUNT_B, START_NS + 3);
        assertEquals(1, gateway.counters().sessionsUnreachable());
    }

    @Test
    void silenceForThreeHeartbeatIntervalsLosesTheSessionAndCancelsItsOrdersOnce()
    {
        fixture.logOnBoth();
        fixture.heartbeat(TRANSPORT_B, ID_B, START_NS + 2 * HEARTBEAT_NS);

        gateway.doWork(START_NS + 3 * HEARTBEAT_NS - 1);
        assertTrue(gateway.isLoggedOn(SESSION_A), "not yet three intervals");
        output.toSessions.clear();
        gateway.doWork(START_NS + 3 * HEARTBEAT_NS);
        // A client that is alive but was late hears that its session is gone, and logs on again.
        assertEquals(LogoutDecoder.TEMPLATE_ID, GatewayFixture.templateId(output.toSessions.stream()
            .filter(message -> message.sessionIndex() == SESSION_A).findFirst().orElseThrow().buffer()),
            "A is told with a Logout");
        gateway.doWork(START_NS + 4 * HEARTBEAT_NS);

        assertFalse(gateway.isLoggedOn(SESSION_A));
        assertTrue(gateway.isLoggedOn(SESSION_B), "B heartbeated");
        assertEquals(1, output.toEngine.size());
        assertMassCancelOfAccount(output.lastToEngine(), ACCOUNT_A, START_NS + 3 * HEARTBEAT_NS);
        assertEquals(1, gateway.counters().heartbeatTimeouts());
        assertEquals(1, gateway.counters().cancelOnDisconnects());
    }

    @Test
    void gatewaySendsAHeartbeatToASessionItHasNotWrittenToForAnInterval()
    {
        fixture.logOnBoth();

        assertEquals(0, gateway.doWork(START_NS + HEARTBEAT_NS - 1));
        assertTrue(output.toSessions.isEmpty());
        gateway.doWork(START_NS + HEARTBEAT_NS);

        assertEquals(2, output.toSessions.size());
        assertEquals(HeartbeatDecoder.TEMPLATE_ID, GatewayFixture.templateId(output.toSessions.get(0).buffer()));
        assertEquals(2, gateway.counters().heartbeatsSent());
        gateway.doWork(START_NS + HEARTBEAT_NS + 1);
        assertEquals(2, output.toSessions.size(), "not again until another interval passes");
    }

    @Test
    void cancelOnDisconnectRefusedByTheEngineIsOfferedAgainUntilItGoes()
    {
        fixture.logOnBoth();
        output.engineRefuses = true;

        gateway.onTransportLost(TRANSPORT_A, START_NS + 1);
        gateway.doWork(START_NS + 2);
        assertEquals(0, gateway.counters().cancelOnDisconnects());
        output.engineRefuses = false;
        gateway.doWork(START_NS + 3);
        gateway.doWork(START_NS + 4);

        assertEquals(1, output.toEngine.size());
        assertMassCancelOfAccount(output.lastToEngine(), ACCOUNT_A, START_NS + 3);
        assertEquals(1, gateway.counters().cancelOnDisconnects());
    }

    @Test
    void aCancelOnDisconnectTheJournalRefusedIsSentAgainAndItsRejectReachesNoClient()
    {
        fixture.logOnBoth();
        gateway.onTransportLost(TRANSPORT_A, START_NS + 1);
        gateway.doWork(START_NS + 2);
        assertEquals(1, output.toEngine.size());

        // The journal could not take it (a segment that could not be made): the account's orders
        // would trade on once it takes requests again. It goes again after a pause, not as fast as
        // the journal refuses it.
        final long retryNs = GatewaySessions.CANCEL_RETRY_NS;
        fixture.journalRefusal(output.lastToEngine(), START_NS + 3);
        gateway.doWork(START_NS + 4);
        assertEquals(1, output.toEngine.size(), "not at once");
        assertEquals(1, gateway.counters().cancelsRefusedByJournal());
        gateway.doWork(START_NS + 3 + retryNs);
        assertEquals(2, output.toEngine.size());
        assertMassCancelOfAccount(output.lastToEngine(), ACCOUNT_A, START_NS + 3 + retryNs);
        assertEquals(1, gateway.counters().cancelOnDisconnects(), "one loss, whatever the journal did");
        assertEquals(1, gateway.counters().cancelsResent());

        fixture.journalRefusal(output.lastToEngine(), START_NS + 4 + retryNs); // refused again: owed again
        gateway.doWork(START_NS + 4 + 2 * retryNs);
        assertEquals(3, output.toEngine.size());
        gateway.doWork(START_NS + 5 + 3 * retryNs);
        assertEquals(3, output.toEngine.size(), "sent once per refusal");
        assertEquals(2, gateway.counters().cancelsRefusedByJournal());
        assertEquals(2, gateway.counters().cancelsResent());
        assertEquals(1, gateway.counters().cancelOnDisconnects());

        fixture.connect(TRANSPORT_B + 10, ID_A);
        final long logonNs = START_NS + 6 + 3 * retryNs;
        // Asking for every reply kept for the session: what the gateway logged for it is resent.
        assertEquals(Gateway.LOGGED_ON, fixture.logon(TRANSPORT_B + 10, ID_A, TOKEN_A, logonNs, 1));
        gateway.doWork(logonNs + 1);
        assertTrue(output.toSessions.stream().noneMatch(message -> message.sessionIndex() == SESSION_A &&
            GatewayFixture.templateId(message.buffer()) == ExecutionReportDecoder.TEMPLATE_ID),
            "the client never sent the gateway's cancel: no reject of it reaches it");
    }

    @Test
    void aRequestWhileTheSessionsRefusedCancelWaitsToGoAgainIsRejectedThrottledNotDropped()
    {
        fixture.logOnBoth();
        gateway.onTransportLost(TRANSPORT_A, START_NS + 1);
        gateway.doWork(START_NS + 2);
        fixture.journalRefusal(output.lastToEngine(), START_NS + 3);
        fixture.connect(TRANSPORT_B + 10, ID_A);
        assertEquals(Gateway.LOGGED_ON, fixture.logon(TRANSPORT_B + 10, ID_A, TOKEN_A, START_NS + 4));

        // The refused cancel waits out its pause, and the new logon's order may not overtake it:
        // the client hears that it must try again, rather than nothing.
        assertEquals(-RejectReason.THROTTLED.value(),
            fixture.newOrder(TRANSPORT_B + 10, 7, ACCOUNT_A, 1, OrdType.LIMIT, 1_000, 10, START_NS + 5));
        fixture.assertLastRejected(SESSION_A, RejectReason.THROTTLED);
        assertEquals(1, gateway.counters().requestsWhileCancelOwed());
        assertEquals(1, output.toEngine.size(), "only the first cancel went");

        final long retryNs = START_NS + 3 + GatewaySessions.CANCEL_RETRY_NS;
        assertEquals(Gateway.FORWARDED,
            fixture.newOrder(TRANSPORT_B + 10, 7, ACCOUNT_A, 1, OrdType.LIMIT, 1_000, 10, retryNs), "sent again as it was");
        assertEquals(3, output.toEngine.size());
        assertMassCancelOfAccount(output.toEngine.get(1), ACCOUNT_A, retryNs);
        assertEquals(NewOrderDecoder.TEMPLATE_ID, GatewayFixture.templateId(output.toEngine.get(2)));
    }

    @Test
    void aCancelOnDisconnectRefusedAfterItsSessionSentARequestIsNotSentAgain()
    {
        fixture.logOnBoth();
        gateway.onTransportLost(TRANSPORT_A, START_NS + 1);
        gateway.doWork(START_NS + 2);
        fixture.connect(TRANSPORT_B + 10, ID_A);
        assertEquals(Gateway.LOGGED_ON, fixture.logon(TRANSPORT_B + 10, ID_A, TOKEN_A, START_NS + 3));
        assertEquals(Gateway.FORWARDED, fixture.newOrder(TRANSPORT_B + 10, 7, ACCOUNT_A, 1, OrdType.LIMIT, 1_000, 10,
            START_NS + 4));
        assertEquals(2, output.toEngine.size());

        // Sent again now, it would cancel the order the session sent since.
        final int toSessionsBefore = output.toSessions.size();
        fixture.journalRefusal(output.toEngine.getFirst(), START_NS + 5);
        gateway.doWork(START_NS + 6);
        assertEquals(2, output.toEngine.size());
        assertEquals(1, gateway.counters().cancelsRefusedByJournal());
        assertEquals(1, gateway.counters().cancelsRefusedAfterRequests());
        assertTrue(output.toSessions.subList(toSessionsBefore, output.toSessions.size()).stream()
            .noneMatch(message -> GatewayFixture.templateId(message.buffer()) == ExecutionReportDecoder.TEMPLATE_ID),
            "the client never sent the gateway's cancel: no reject of it reaches it");
    }

    @Test
    void aClientsOwnMassCancelRefusedBesideTheGatewaysCancelReachesTheClientAndTheGatewaysGoesAgain()
    {
        fixture.logOnBoth();
        // The client's cancel of its whole account carries id 0 and every instrument too, like the
        // gateway's cancel on its loss just after: the journal refuses both.
        assertEquals(Gateway.FORWARDED, fixture.massCancelAll(TRANSPORT_A, 0, ACCOUNT_A, START_NS + 1));
        final UnsafeBuffer clientsCancel = output.lastToEngine();
        gateway.onTransportLost(TRANSPORT_A, START_NS + 2);
        gateway.doWork(START_NS + 3);
        assertEquals(2, output.toEngine.size());
        final UnsafeBuffer gatewaysCancel = output.lastToEngine();

        fixture.journalRefusal(clientsCancel, START_NS + 4);
        assertEquals(0, gateway.counters().cancelsRefusedByJournal(), "the client's, not the gateway's");
        final long retryNs = GatewaySessions.CANCEL_RETRY_NS;
        gateway.doWork(START_NS + 4 + retryNs);
        assertEquals(2, output.toEngine.size(), "the gateway's cancel is not yet refused: nothing goes again");

        fixture.journalRefusal(gatewaysCancel, START_NS + 5 + retryNs);
        assertEquals(1, gateway.counters().cancelsRefusedByJournal());
        gateway.doWork(START_NS + 5 + 2 * retryNs);
        assertEquals(3, output.toEngine.size());
        assertMassCancelOfAccount(output.lastToEngine(), ACCOUNT_A, START_NS + 5 + 2 * retryNs);

        fixture.connect(TRANSPORT_B + 10, ID_A);
        final long logonNs = START_NS + 6 + 2 * retryNs;
        assertEquals(Gateway.LOGGED_ON, fixture.logon(TRANSPORT_B + 10, ID_A, TOKEN_A, logonNs, 1));
        gateway.doWork(logonNs + 1);
        final List<RecordingGatewayOutput.SessionMessage> reports = output.toSessions.stream()
            .filter(message -> message.sessionIndex() == SESSION_A &&
                GatewayFixture.templateId(message.buffer()) == ExecutionReportDecoder.TEMPLATE_ID)
            .toList();
        assertEquals(1, reports.size(), "the client hears of its own cancel, once, and not of the gateway's");
        final ExecutionReportDecoder reject = fixture.report(reports.getFirst().buffer());
        assertEquals(RejectReason.JOURNAL_REFUSED, reject.rejectReason());
        assertEquals(START_NS + 1 - 100, reject.clientSendTime(), "its own cancel's reject");
    }

    @Test
    void sessionCanLogOnAgainAfterLogout()
    {
        fixture.logOnBoth();
        fixture.logout(TRANSPORT_A, ID_A, START_NS + 1);
        fixture.connect(TRANSPORT_B + 10, ID_A);

        assertEquals(Gateway.LOGGED_ON, fixture.logon(TRANSPORT_B + 10, ID_A, TOKEN_A, START_NS + 2));
        assertTrue(gateway.isLoggedOn(SESSION_A));
        assertEquals(Gateway.FORWARDED, fixture.newOrder(TRANSPORT_B + 10, 1, ACCOUNT_A, 1, OrdType.LIMIT, 1_000, 1,
            START_NS + 3));
    }

    @Test
    void logonWithAnInvalidHeartbeatIntervalIsRejected()
    {
        final int length = MessageHeaderEncoder.ENCODED_LENGTH + new LogonEncoder()
            .wrapAndApplyHeader(fixture.buffer, 0, fixture.header).sessionId(ID_A).heartbeatIntervalMs(0)
            .sendingTime(START_NS).nextReplySequence(0).replyLife(0).credentials(TOKEN_A).encodedLength();

        assertEquals(Gateway.LOGON_REJECTED, gateway.onClientMessage(TRANSPORT_A, fixture.buffer, 0, length, START_NS));

        assertEquals(LogonRejectReason.INVALID_HEARTBEAT_INTERVAL,
            logonResponse(output.lastToSession().buffer()).rejectReason());
        assertFalse(gateway.isLoggedOn(SESSION_A));
        assertEquals(1, gateway.counters().invalidHeartbeatIntervals());
    }

    @Test
    void transportLoggedOnAsOneSessionCannotLogOnAsAnotherAndHearsWhyOnItsOwnSession()
    {
        fixture.logon(TRANSPORT_A, ID_A, TOKEN_A, START_NS);

        assertEquals(Gateway.LOGON_REJECTED, fixture.logon(TRANSPORT_A, ID_B, TOKEN_B, START_NS + 1));

        assertEquals(SESSION_A, output.lastToSession().sessionIndex());
        assertEquals(LogonRejectReason.BAD_CREDENTIALS,
            logonResponse(output.lastToSession().buffer()).rejectReason());
        assertFalse(gateway.isLoggedOn(SESSION_B));
    }

    @Test
    void clientMassCancelOfItsOwnAccountIsForwardedStamped()
    {
        fixture.logOnBoth();
        final int length = MessageHeaderEncoder.ENCODED_LENGTH + new MassCancelEncoder()
            .wrapAndApplyHeader(fixture.buffer, 0, fixture.header).clientOrderId(5).account(ACCOUNT_A).instrumentId(1)
            .sendingTime(START_NS).receiveTime(0).encodedLength();

        assertEquals(Gateway.FORWARDED, gateway.onClientMessage(TRANSPORT_A, fixture.buffer, 0, length, START_NS + 8));

        final MassCancelDecoder forwarded = new MassCancelDecoder().wrap(output.lastToEngine(),
            MessageHeaderDecoder.ENCODED_LENGTH, MassCancelDecoder.BLOCK_LENGTH, 2);
        assertEquals(START_NS + 8, forwarded.receiveTime());
        assertEquals(1, forwarded.instrumentId());
        assertEquals(ACCOUNT_A, forwarded.account());
    }

    @Test
    void owedCancelOnDisconnectReachesTheEngineBeforeTheNextLogonsOrders()
    {
        fixture.logOnBoth();
        output.engineRefuses = true;
        gateway.onTransportLost(TRANSPORT_A, START_NS + 1);
        fixture.connect(TRANSPORT_A + 7, ID_A);
        fixture.logon(TRANSPORT_A + 7, ID_A, TOKEN_A, START_NS + 2);

        assertEquals(Gateway.BACK_PRESSURED,
            fixture.newOrder(TRANSPORT_A + 7, 1, ACCOUNT_A, 1, OrdType.LIMIT, 1_000, 1, START_NS + 3));
        output.engineRefuses = false;
        assertEquals(Gateway.FORWARDED,
            fixture.newOrder(TRANSPORT_A + 7, 1, ACCOUNT_A, 1, OrdType.LIMIT, 1_000, 1, START_NS + 4));

        assertEquals(2, output.toEngine.size());
        assertMassCancelOfAccount(output.toEngine.get(0), ACCOUNT_A, START_NS + 4);
        assertEquals(NewOrderDecoder.TEMPLATE_ID, GatewayFixture.templateId(output.toEngine.get(1)));
        assertEquals(1, gateway.counters().cancelOnDisconnects());
    }

    @Test
    void aStartingGatewayCancelsEverySessionsOrdersOnceAndBeforeAnyOfItsRequests()
    {
        // The orders of a session logged on when the last gateway process went: nothing else cancels them.
        final GatewayFixture starting = new GatewayFixture(100, 10, 1_000, false);
        final Gateway started = starting.gateway;
        started.doWork(START_NS);
        started.doWork(START_NS + 1);
        assertEquals(0, started.counters().startCancels(), "the engine's stream is not there yet");
        assertEquals(2, started.counters().engineBackPressured(), "one refusal a cycle, not one per session");

        starting.logon(TRANSPORT_A, ID_A, TOKEN_A, START_NS + 2);
        assertEquals(Gateway.BACK_PRESSURED,
            starting.newOrder(TRANSPORT_A, 1, ACCOUNT_A, 1, OrdType.LIMIT, 1_000, 1, START_NS + 3));
        starting.output.engineRefuses = false;
        assertEquals(Gateway.FORWARDED,
            starting.newOrder(TRANSPORT_A, 1, ACCOUNT_A, 1, OrdType.LIMIT, 1_000, 1, START_NS + 4));
        started.doWork(START_NS + 5);
        started.doWork(START_NS + 6);

        final List<UnsafeBuffer> toEngine = starting.output.toEngine;
        assertEquals(3, toEngine.size(), "A's cancel, A's order, then B's cancel; once each");
        assertMassCancelOfAccount(toEngine.get(0), ACCOUNT_A, START_NS + 4);
        assertEquals(NewOrderDecoder.TEMPLATE_ID, GatewayFixture.templateId(toEngine.get(1)));
        assertMassCancelOfAccount(toEngine.get(2), ACCOUNT_B, START_NS + 5);
        assertEquals(2, started.counters().startCancels());
        assertEquals(0, started.counters().cancelOnDisconnects(), "no session was lost at this gateway");
    }
}
