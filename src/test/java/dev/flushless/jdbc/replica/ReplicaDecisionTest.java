package dev.flushless.jdbc.replica;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.analysis.SqlAnalyzer;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The pure parts of replica reads: the routing decision, what the analysis proves, positions, settings. */
class ReplicaDecisionTest {

    private static ReplicaDecision.Facts facts(
            boolean autoCommit, boolean readOnly, boolean proven, boolean pending, boolean up) {
        return new ReplicaDecision.Facts(
                true, autoCommit, readOnly, false, false, proven, false, false, true, pending, up);
    }

    @Test
    void autocommitSelectsRunOnAReplicaOnlyWhenProven() {
        assertTrue(ReplicaDecision.decide(facts(true, false, true, false, true)).replica());
        assertEquals(
                PrimaryReason.NOT_PROVEN,
                ReplicaDecision.decide(facts(true, false, false, false, true)).reason());
        assertEquals(
                PrimaryReason.POSITION_PENDING,
                ReplicaDecision.decide(facts(true, false, true, true, true)).reason());
        assertEquals(
                PrimaryReason.NO_REPLICA,
                ReplicaDecision.decide(facts(true, false, true, false, false)).reason());
    }

    @Test
    void transactionsRunOnAReplicaOnlyWhenReadOnlyAndNotStartedOnThePrimary() {
        // unproven queries are fine in a read-only transaction: the server refuses writes there
        assertTrue(
                ReplicaDecision.decide(facts(false, true, false, false, true)).replica());
        assertEquals(
                PrimaryReason.READ_WRITE_TRANSACTION,
                ReplicaDecision.decide(facts(false, false, true, false, true)).reason());
        assertEquals(
                PrimaryReason.TRANSACTION_ON_PRIMARY,
                ReplicaDecision.decide(new ReplicaDecision.Facts(
                                true, false, true, false, true, true, false, false, true, false, true))
                        .reason());
        // once on the replica, the whole transaction stays there
        assertTrue(ReplicaDecision.decide(new ReplicaDecision.Facts(
                        true, false, true, true, false, false, true, true, false, true, false))
                .replica());
    }

    @Test
    void sessionStateSerializableAndSettingsKeepReadsOnThePrimary() {
        assertEquals(
                PrimaryReason.SESSION_STATE,
                ReplicaDecision.decide(new ReplicaDecision.Facts(
                                true, true, false, false, false, true, true, false, true, false, true))
                        .reason());
        assertEquals(
                PrimaryReason.SERIALIZABLE,
                ReplicaDecision.decide(new ReplicaDecision.Facts(
                                true, false, true, false, false, true, false, true, true, false, true))
                        .reason());
        assertEquals(
                PrimaryReason.STATEMENT_SETTING,
                ReplicaDecision.decide(new ReplicaDecision.Facts(
                                true, true, false, false, false, true, false, false, false, false, true))
                        .reason());
        ReplicaDecision.Outcome write = ReplicaDecision.decide(
                new ReplicaDecision.Facts(false, true, false, false, false, true, false, false, true, false, true));
        assertFalse(write.replica());
        assertNull(write.reason());
    }

    @Test
    void theAnalysisProvesReadOnlyness() {
        SqlAnalyzer analyzer = new SqlAnalyzer(64);
        assertTrue(analyzer.describe("SELECT v FROM kv WHERE id = ?").provenReadOnlyForReplica());
        assertTrue(analyzer.describe("SELECT count(*), max(v) FROM kv JOIN t ON t.id = kv.id")
                .provenReadOnlyForReplica());
        for (String sql : List.of(
                "SELECT v FROM kv WHERE id = ? FOR UPDATE",
                "SELECT v FROM kv FOR SHARE",
                "SELECT nextval('s')",
                "SELECT currval('s')",
                "SELECT my_function(v) FROM kv",
                "SELECT current_setting('search_path')",
                "SELECT txid_current()",
                "WITH d AS (DELETE FROM kv RETURNING *) SELECT * FROM d",
                "SELECT * INTO copy FROM kv",
                "SELECT 1; SELECT 2",
                "UPDATE kv SET v = 1")) {
            assertFalse(analyzer.describe(sql).provenReadOnlyForReplica(), sql);
        }
    }

    @Test
    void caughtUpNeedsRecoveryAndTheFloor() {
        assertTrue(ReplicaDecision.caughtUp(true, Lsn.parse("1/10"), Lsn.parse("1/10")));
        assertFalse(ReplicaDecision.caughtUp(true, Lsn.parse("1/F"), Lsn.parse("1/10")));
        assertFalse(ReplicaDecision.caughtUp(false, Lsn.parse("2/0"), Lsn.parse("1/10")), "promoted");
    }

    @Test
    void positionsParseAndCompareUnsigned() {
        assertEquals("16/B374D848", Lsn.format(Lsn.parse("16/B374D848")));
        assertEquals("0/0", Lsn.format(0));
        assertTrue(Lsn.atLeast(Lsn.parse("FFFFFFFF/0"), Lsn.parse("1/0")));
        assertEquals(Lsn.parse("FFFFFFFF/0"), Lsn.max(Lsn.parse("1/0"), Lsn.parse("FFFFFFFF/0")));
        assertThrows(IllegalArgumentException.class, () -> Lsn.parse("12"));
        assertThrows(IllegalArgumentException.class, () -> Lsn.parse("x/1"));
    }

    @Test
    void replicaListsAreCheckedWith22023() throws SQLException {
        Properties p = new Properties();
        p.setProperty("flushless.replicas", " db-r1:5433, db-r2 ,[::1]:6000 ");
        FlushlessConfig config = FlushlessConfig.from(p);
        assertEquals(
                List.of(new HostPort("db-r1", 5433), new HostPort("db-r2", 5432), new HostPort("::1", 6000)),
                config.replicas());
        for (String bad : List.of("a:b", "a:0", "a,,b", "a:1,a:1", "a b", "::1:5")) {
            Properties q = new Properties();
            q.setProperty("flushless.replicas", bad);
            SQLException e = assertThrows(SQLException.class, () -> FlushlessConfig.from(q), bad);
            assertEquals("22023", e.getSQLState());
            assertTrue(e.getMessage().contains("flushless.replicas"), e.getMessage());
        }
        assertTrue(FlushlessConfig.defaults().replicas().isEmpty());
        assertTrue(FlushlessConfig.defaults().readYourWrites());
    }

    @Test
    void replicaUrlsNameOneHost() {
        HostPort r = new HostPort("replica", 6432);
        assertEquals(
                "jdbc:postgresql://replica:6432/shop?ssl=true",
                ReplicaConnector.replicaUrl(
                        "jdbc:postgresql://p1:5432,p2:5432/shop?targetServerType=primary&ssl=true", r));
        assertEquals("jdbc:postgresql://replica:6432/shop", ReplicaConnector.replicaUrl("jdbc:postgresql:shop", r));
        assertEquals("jdbc:postgresql://replica:6432/", ReplicaConnector.replicaUrl("jdbc:postgresql://p1", r));
    }

    @Test
    void tokensAreCheckedWith22023() throws SQLException {
        assertEquals(Lsn.parse("0/16B3748"), ReplicaSession.parseToken("pg:0/16B3748"));
        assertEquals(
                "22023",
                assertThrows(SQLException.class, () -> ReplicaSession.parseToken("yb:1"))
                        .getSQLState());
        assertEquals(
                "22023",
                assertThrows(SQLException.class, () -> ReplicaSession.parseToken("pg:zz"))
                        .getSQLState());
    }

    /** YugabyteDB: a follower read that could miss this driver's commit reads from the leaders. */
    @Test
    void followerReadsReadFromLeadersWhileACommitIsInTheirWindow() {
        long ms = 1_000_000L;
        long commit = 10_000 * ms;
        // staleness 30 ms + skew 500 ms: a read 100 ms after the commit could read before it
        assertTrue(FollowerReadCausality.readFromLeaders(commit + 100 * ms, commit, 0, 30, 500));
        assertFalse(FollowerReadCausality.readFromLeaders(commit + 531 * ms, commit, 0, 30, 500));
        assertFalse(FollowerReadCausality.readFromLeaders(commit, Long.MIN_VALUE, 0, 30, 500), "nothing written");
        assertTrue(FollowerReadCausality.readFromLeaders(commit + 10_000 * ms, commit, 1, 30, 500), "a write runs");
    }
}
