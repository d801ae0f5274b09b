package dev.flushless.benchmarks;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;

/**
 * One transaction shaped like TPC-C's Payment as BenchBase runs it, for {@link AsSentCost}'s {@code --workload
 * payment}: a statement prepared and closed per execution (BenchBase prepares per call), reads by primary key, a
 * {@code SELECT ... FOR UPDATE}, UPDATEs of numeric columns, an INSERT with a timestamp and a decimal into a table
 * without a key, then commit. It measures what a driver costs per OLTP statement, not a batch.
 */
final class PaymentOp {

    private static final int DISTRICTS = 10;
    private static final int CUSTOMERS = 300;

    private final String warehouse;
    private final String district;
    private final String customer;
    private final String history;
    private long next;

    PaymentOp(String prefix) {
        this.warehouse = prefix + "warehouse";
        this.district = prefix + "district";
        this.customer = prefix + "customer";
        this.history = prefix + "history";
    }

    /** Creates and fills the tables (one warehouse). */
    void create(Connection house) throws SQLException {
        try (Statement s = house.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + warehouse + ", " + district + ", " + customer + ", " + history);
            s.execute(
                    "CREATE TABLE " + warehouse + " (w_id int PRIMARY KEY, w_name varchar(10), w_street_1 varchar(20),"
                            + " w_city varchar(20), w_ytd decimal(12,2) NOT NULL)");
            s.execute("CREATE TABLE " + district + " (d_w_id int, d_id int, d_name varchar(10), d_street_1 varchar(20),"
                    + " d_city varchar(20), d_ytd decimal(12,2) NOT NULL, PRIMARY KEY (d_w_id, d_id))");
            s.execute(
                    "CREATE TABLE " + customer + " (c_w_id int, c_d_id int, c_id int, c_first varchar(16),"
                            + " c_last varchar(16), c_credit char(2), c_balance decimal(12,2), c_ytd_payment float,"
                            + " c_payment_cnt int, c_since timestamp, c_data varchar(500), PRIMARY KEY (c_w_id, c_d_id, c_id))");
            s.execute("CREATE TABLE " + history + " (h_c_id int, h_c_d_id int, h_c_w_id int, h_d_id int, h_w_id int,"
                    + " h_date timestamp, h_amount decimal(6,2), h_data varchar(24))");
            s.execute("INSERT INTO " + warehouse + " VALUES (1, 'w1', 'street', 'city', 300000)");
            s.execute("INSERT INTO " + district + " SELECT 1, d, 'd' || d, 'street', 'city', 30000"
                    + " FROM generate_series(1, " + DISTRICTS + ") d");
            s.execute("INSERT INTO " + customer + " SELECT 1, d, c, 'first', 'last' || c, 'GC', -10, 10, 1, now(),"
                    + " repeat('x', 300) FROM generate_series(1, " + DISTRICTS + ") d, generate_series(1, " + CUSTOMERS
                    + ") c");
        }
    }

    void drop(Connection house) throws SQLException {
        try (Statement s = house.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + warehouse + ", " + district + ", " + customer + ", " + history);
        }
    }

    /** Between blocks: empties the history table only (the others keep their rows and are updated in place). */
    void truncate(Connection house) throws SQLException {
        try (Statement s = house.createStatement()) {
            s.execute("TRUNCATE " + history);
        }
    }

    /** One Payment transaction on {@code c} (autocommit off), then commit. */
    void run(Connection c) throws SQLException {
        long n = next++;
        int d = (int) (n % DISTRICTS) + 1;
        int cid = (int) ((n * 7) % CUSTOMERS) + 1;
        BigDecimal amount = BigDecimal.valueOf(100 + n % 4900, 2);
        update(c, "UPDATE " + warehouse + " SET w_ytd = w_ytd + ? WHERE w_id = ?", amount, 1);
        read(c, "SELECT w_street_1, w_city, w_name FROM " + warehouse + " WHERE w_id = ?", 1);
        update(c, "UPDATE " + district + " SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?", amount, 1, d);
        read(c, "SELECT d_street_1, d_city, d_name FROM " + district + " WHERE d_w_id = ? AND d_id = ?", 1, d);
        read(
                c,
                "SELECT c_first, c_last, c_credit, c_balance, c_ytd_payment, c_payment_cnt, c_since FROM " + customer
                        + " WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE",
                1,
                d,
                cid);
        update(
                c,
                "UPDATE " + customer + " SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?,"
                        + " c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
                amount,
                amount.doubleValue(),
                1,
                d,
                cid);
        update(
                c,
                "INSERT INTO " + history + " (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                d,
                1,
                cid,
                d,
                1,
                new Timestamp(System.currentTimeMillis()),
                amount,
                "w1    d" + d);
        c.commit();
    }

    private static void update(Connection c, String sql, Object... values) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, values);
            if (ps.executeUpdate() != 1) {
                throw new IllegalStateException("no row: " + sql);
            }
        }
    }

    private static void read(Connection c, String sql, Object... values) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, values);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("no row: " + sql);
                }
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                    rs.getObject(i);
                }
            }
        }
    }

    private static void bind(PreparedStatement ps, Object... values) throws SQLException {
        for (int i = 0; i < values.length; i++) {
            Object v = values[i];
            if (v instanceof Integer x) {
                ps.setInt(i + 1, x);
            } else if (v instanceof Double x) {
                ps.setDouble(i + 1, x);
            } else if (v instanceof BigDecimal x) {
                ps.setBigDecimal(i + 1, x);
            } else if (v instanceof Timestamp x) {
                ps.setTimestamp(i + 1, x);
            } else {
                ps.setString(i + 1, (String) v);
            }
        }
    }
}
