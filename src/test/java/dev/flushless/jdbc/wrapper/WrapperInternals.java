package dev.flushless.jdbc.wrapper;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.group.GroupCommitInternals;
import java.sql.Connection;
import java.sql.SQLException;

/** Test access to wrapper state that the driver keeps package-private: the bounds tests check it. */
public final class WrapperInternals {

    private WrapperInternals() {}

    /** Distinct SQL texts in the driver-wide analysis cache (0 before the first connection). */
    public static int parseCacheEntries() {
        return WrappedConnection.sharedAnalyzer() == null
                ? 0
                : WrappedConnection.sharedAnalyzer().cachedCount();
    }

    /** Characters of SQL text the driver-wide analysis cache holds. */
    public static long parseCacheChars() {
        return WrappedConnection.sharedAnalyzer() == null
                ? 0
                : WrappedConnection.sharedAnalyzer().cachedChars();
    }

    /** Rows {@code mode=transaction} keeps buffered on {@code connection} now. */
    public static long bufferedRows(Connection connection) throws SQLException {
        return wrapped(connection).engine.transactions().bufferedRows();
    }

    /** Estimated bytes {@code mode=transaction} keeps buffered on {@code connection} now. */
    public static long bufferedBytes(Connection connection) throws SQLException {
        return wrapped(connection).engine.transactions().bufferedBytes();
    }

    /** Group commit: leaders that waited for company so far, driver-wide. */
    public static long groupCommitCompanyWaits() {
        return GroupCommitInternals.companyWaits();
    }

    /** Group commit: the most groups one lane had running at once so far, driver-wide. */
    public static int groupCommitMostRunning() {
        return GroupCommitInternals.mostRunning();
    }

    /** Group commit: lanes (session fingerprint and SQL text) kept driver-wide now, and their bound. */
    public static int[] groupCommitLanes() {
        return GroupCommitInternals.lanes();
    }

    /** Group commit: makes every leader wait (up to maxDelayMicros) for a group of {@code size}; 0 turns it off. */
    public static void groupCommitTestGroupSize(int size) {
        GroupCommitInternals.testGroupSize(size);
    }

    private static WrappedConnection wrapped(Connection connection) throws SQLException {
        return (WrappedConnection) connection.unwrap(FlushlessConnection.class);
    }
}
