package dev.flushless.jdbc.session;

import java.sql.Connection;
import java.sql.SQLException;
import org.postgresql.core.BaseConnection;

/**
 * Settings of the pgjdbc connection that change what pgjdbc sends for a parameter ({@code stringtype},
 * binary transfer of dates and floats) or how SQL text must be read ({@code standard_conforming_strings}).
 * When the delegate is not pgjdbc these facts are unknown and rewrites that depend on them are not applied.
 */
public record SessionFacts(
        boolean known,
        boolean stringVarchar,
        boolean binaryFloat4,
        boolean binaryDate,
        boolean standardConformingStrings,
        boolean quoteReturningIdentifiers,
        org.postgresql.jdbc.TimestampUtils timestamps) {

    /**
     * Facts without the connection's own {@code TimestampUtils}: dates and timestamps are written as pgjdbc writes them
     * for a connection to a server with integer date-times, in the JVM's default time zone (a writer per call: pgjdbc's
     * {@code TimestampUtils} is not thread-safe, and these facts may be shared, e.g. {@link #PGJDBC_DEFAULTS}).
     */
    public SessionFacts(
            boolean known,
            boolean stringVarchar,
            boolean binaryFloat4,
            boolean binaryDate,
            boolean standardConformingStrings,
            boolean quoteReturningIdentifiers) {
        this(
                known,
                stringVarchar,
                binaryFloat4,
                binaryDate,
                standardConformingStrings,
                quoteReturningIdentifiers,
                null);
    }

    /** The connection's timestamp writer (used on the connection's own thread, as pgjdbc uses it), or a new one. */
    private org.postgresql.jdbc.TimestampUtils writer() {
        return timestamps != null
                ? timestamps
                : new org.postgresql.jdbc.TimestampUtils(false, java.util.TimeZone::getDefault);
    }

    /** Equal when the facts are: the timestamp writer is a codec, not a fact. */
    @Override
    public boolean equals(Object other) {
        return other instanceof SessionFacts o
                && known == o.known
                && stringVarchar == o.stringVarchar
                && binaryFloat4 == o.binaryFloat4
                && binaryDate == o.binaryDate
                && standardConformingStrings == o.standardConformingStrings
                && quoteReturningIdentifiers == o.quoteReturningIdentifiers;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(
                known, stringVarchar, binaryFloat4, binaryDate, standardConformingStrings, quoteReturningIdentifiers);
    }

    @Override
    public String toString() {
        return "SessionFacts[known=" + known + ", stringVarchar=" + stringVarchar + ", binaryFloat4=" + binaryFloat4
                + ", binaryDate=" + binaryDate + ", standardConformingStrings=" + standardConformingStrings
                + ", quoteReturningIdentifiers=" + quoteReturningIdentifiers + "]";
    }

    /**
     * The text pgjdbc sends for {@code setTimestamp(i, value, calendar)} ({@code calendar} {@code null}: the JVM's default
     * time zone, as pgjdbc's default calendar): the connection's own {@code TimestampUtils} writes it.
     */
    public String timestampText(java.sql.Timestamp value, java.util.Calendar calendar) {
        org.postgresql.jdbc.TimestampUtils writer = writer();
        return writer.toString(calendar != null ? calendar : writer.getSharedCalendar(null), value);
    }

    /** As {@link #timestampText} for {@code setDate} sent as text (pgjdbc's default, without binary dates). */
    public String dateText(java.sql.Date value, java.util.Calendar calendar) {
        org.postgresql.jdbc.TimestampUtils writer = writer();
        return writer.toString(calendar != null ? calendar : writer.getSharedCalendar(null), value);
    }

    /** Facts for a connection that is not pgjdbc: nothing is assumed. */
    public static final SessionFacts UNKNOWN = new SessionFacts(false, true, false, false, true, true);

    /**
     * What {@link #of} reads from a pgjdbc connection opened with pgjdbc's defaults ({@code stringtype} unset, so
     * strings are sent as varchar; float4 sent in binary, dates as text; {@code standard_conforming_strings} on, as
     * every supported server has it; {@code quoteReturningIdentifiers} on): what {@code explain} plans with when it
     * has no connection. {@code ExplainAgreementTest} checks it against a real connection.
     */
    public static final SessionFacts PGJDBC_DEFAULTS = new SessionFacts(true, true, true, false, true, true);

    /**
     * The text pgjdbc appends to a statement prepared for generated keys ({@code RETURN_GENERATED_KEYS} is
     * {@code {"*"}}), as its {@code Parser.addReturning} writes it, or {@code null} for none.
     */
    public String returningSuffix(String[] columns) throws SQLException {
        if (columns == null || columns.length == 0) {
            return null;
        }
        StringBuilder suffix = new StringBuilder("\nRETURNING ");
        if (columns.length == 1 && columns[0].charAt(0) == '*') {
            return suffix.append('*').toString();
        }
        for (int i = 0; i < columns.length; i++) {
            if (i > 0) {
                suffix.append(", ");
            }
            if (quoteReturningIdentifiers) {
                org.postgresql.core.Utils.escapeIdentifier(suffix, columns[i]);
            } else {
                suffix.append(columns[i]);
            }
        }
        return suffix.toString();
    }

    /** Reads the facts from the pgjdbc connection underneath {@code connection}. */
    public static SessionFacts of(Connection connection) {
        try {
            if (!connection.isWrapperFor(BaseConnection.class)) {
                return UNKNOWN;
            }
            BaseConnection pg = connection.unwrap(BaseConnection.class);
            return new SessionFacts(
                    true,
                    pg.getStringVarcharFlag(),
                    pg.binaryTransferSend(org.postgresql.core.Oid.FLOAT4),
                    pg.binaryTransferSend(org.postgresql.core.Oid.DATE),
                    pg.getStandardConformingStrings(),
                    pg.getQueryExecutor().getQuoteReturningIdentifiers(),
                    pg.getTimestampUtils());
        } catch (SQLException | RuntimeException e) {
            return UNKNOWN;
        }
    }
}
