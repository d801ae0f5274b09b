package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.FlushlessConfig;

/**
 * Whether a plain INSERT batch that can take the COPY form ({@link CopyForm}) is sent as COPY: the rule the driver and
 * {@code explain} both decide with. Pure.
 *
 * <p>COPY saves the server (and the client's array encoding) time in proportion to the values it carries, and costs
 * round trips the INSERT forms do not: the INSERT forms send the batch in one, while {@link CopyExecutor} sends the lock
 * and catalog check (one), COPY itself (two: pgjdbc waits for the server's CopyInResponse before the data) and, in
 * autocommit its COMMIT, inside a transaction with earlier work the guard's RELEASE (one). The rule with
 * {@code flushless.copy=auto}: COPY when
 * {@code rows * columns * (0.1 µs + rows * 0.00005 µs) >= extraRoundTrips * rtt + 100 µs},
 * where {@code rtt} is the round-trip time measured on the server's connections ({@link RoundTripTime}; 0.2 ms until
 * a COPY has measured it, {@link #UNMEASURED_RTT_MICROS}). The constants come from the wide TPC-C-like shape (10 columns) on PostgreSQL 15, paired with
 * the INSERT forms at 50 to 10,000 rows per batch, narrow and wide (docs/benchmarks.md, "Bulk writes"): COPY's saving,
 * client and server, is about 0.15 µs per value at 1,000 rows and 0.6-0.75 µs at 10,000, and it came out ahead from
 * about 200 rows of 10 columns on a local server. {@code always} sends COPY wherever it stores what the INSERTs would; {@code off} never.
 *
 * @param mode {@code flushless.copy}
 * @param rttMicros the measured round-trip time, negative when not measured yet
 * @param autocommit whether the connection is in autocommit
 * @param guarded whether a transaction is open with earlier work (COPY is then guarded by a savepoint)
 */
public record CopyChoice(FlushlessConfig.Copy mode, double rttMicros, boolean autocommit, boolean guarded) {

    /** What COPY saves per value (server and client) in a small batch, in microseconds. */
    static final double SAVING_PER_VALUE_MICROS = 0.1;

    /**
     * How much more it saves per value for every row of the batch, in microseconds: the INSERT forms' cost per row grows
     * with the batch (the unnest form materializes its rows, in several statements past 4,096), COPY's does not.
     */
    static final double SAVING_GROWTH_PER_ROW_MICROS = 0.00005;

    /** COPY's own fixed cost (the lock and catalog check, the COPY statement), in microseconds. */
    static final double FIXED_COST_MICROS = 100;

    /**
     * The round-trip time assumed until one was measured, in microseconds: a server in the same data centre. Only a COPY
     * measures it (its start is a round trip in which the server does next to nothing), so a pessimistic guess would
     * never let COPY run where it pays; a wrong optimistic one costs the first COPY-sized batch to a distant server
     * two or three round trips, once per server and process, after which the measured time decides.
     */
    static final double UNMEASURED_RTT_MICROS = 200;

    /** Never COPY. */
    public static final CopyChoice NEVER = new CopyChoice(FlushlessConfig.Copy.OFF, -1, false, false);

    /**
     * When a plain INSERT batch goes as COPY on a connection: never with {@code flushless.copy=off}, on YugabyteDB
     * (which splits an autocommit COPY into transactions of its own), with a query timeout (pgjdbc applies none to
     * COPY), with buffered writes to carry ({@code mode=transaction}: they ride in an INSERT form's round trip), or on
     * a connection that is not pgjdbc's; else by {@link #pays}. The driver and {@code explain} both ask it.
     */
    public static CopyChoice of(
            FlushlessConfig.Copy mode,
            boolean yugabyte,
            int queryTimeoutSeconds,
            boolean buffered,
            boolean pgjdbc,
            double rttMicros,
            boolean autocommit,
            boolean guarded) {
        if (mode == FlushlessConfig.Copy.OFF || yugabyte || queryTimeoutSeconds > 0 || buffered || !pgjdbc) {
            return NEVER;
        }
        return new CopyChoice(mode, rttMicros, autocommit, guarded);
    }

    /** Round trips COPY costs beyond the one of the INSERT forms. */
    public int extraRoundTrips() {
        return CopyExecutor.roundTrips(autocommit, guarded) - 1;
    }

    /** Whether a batch of {@code rows} rows of {@code columns} values each is sent as COPY. */
    public boolean pays(int rows, int columns) {
        switch (mode) {
            case OFF:
                return false;
            case ALWAYS:
                return true;
            default:
                double rtt = rttMicros >= 0 ? rttMicros : UNMEASURED_RTT_MICROS;
                double saving =
                        rows * (double) columns * (SAVING_PER_VALUE_MICROS + rows * SAVING_GROWTH_PER_ROW_MICROS);
                return saving >= extraRoundTrips() * rtt + FIXED_COST_MICROS;
        }
    }
}
