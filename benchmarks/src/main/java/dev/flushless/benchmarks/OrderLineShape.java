package dev.flushless.benchmarks;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The wide shape of the bulk workloads: TPC-C's {@code order_line}, ten columns of int, timestamp (a third NULL, as
 * for orders not yet delivered), decimal and char(24), keyed by warehouse, district, order and line number. Values are
 * a deterministic function of the side's running row number {@code n}: line {@code n % 15 + 1} of order
 * {@code n / 150 + 1} in district {@code n / 15 % 10 + 1}, so keys never repeat within a run.
 */
final class OrderLineShape implements BulkShape {

    static final String COLUMNS = "ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, ol_delivery_d, ol_amount,"
            + " ol_supply_w_id, ol_quantity, ol_dist_info";

    private static final LocalDateTime EPOCH = LocalDateTime.of(2026, 1, 1, 0, 0);
    private static final DateTimeFormatter COPY_TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
    private static final String LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

    @Override
    public String columns() {
        return COLUMNS;
    }

    @Override
    public String createTable(String table) {
        return "CREATE TABLE " + table + " (ol_w_id int NOT NULL, ol_d_id int NOT NULL, ol_o_id int NOT NULL,"
                + " ol_number int NOT NULL, ol_i_id int NOT NULL, ol_delivery_d timestamp NULL,"
                + " ol_amount decimal(6,2) NOT NULL, ol_supply_w_id int NOT NULL, ol_quantity decimal(6,2) NOT NULL,"
                + " ol_dist_info char(24) NOT NULL, PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number))";
    }

    @Override
    public void insertBatch(Connection c, String table, long first, int rows) throws SQLException {
        String sql = "INSERT INTO " + table + " (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < rows; i++) {
                long n = first + i;
                ps.setInt(1, warehouse(n));
                ps.setInt(2, district(n));
                ps.setInt(3, order(n));
                ps.setInt(4, line(n));
                ps.setInt(5, item(n));
                LocalDateTime delivered = delivered(n);
                if (delivered == null) {
                    ps.setNull(6, Types.TIMESTAMP);
                } else {
                    ps.setTimestamp(6, Timestamp.valueOf(delivered));
                }
                ps.setBigDecimal(7, amount(n));
                ps.setInt(8, warehouse(n));
                ps.setBigDecimal(9, quantity(n));
                ps.setString(10, distInfo(n));
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            if (counts.length != rows) {
                throw new IllegalStateException("batch returned " + counts.length + " counts for " + rows + " rows");
            }
        }
    }

    @Override
    public void appendCopy(StringBuilder out, long first, int rows) {
        for (int i = 0; i < rows; i++) {
            long n = first + i;
            out.append(warehouse(n)).append('\t');
            out.append(district(n)).append('\t');
            out.append(order(n)).append('\t');
            out.append(line(n)).append('\t');
            out.append(item(n)).append('\t');
            LocalDateTime delivered = delivered(n);
            CopyText.value(out, delivered == null ? null : COPY_TIMESTAMP.format(delivered))
                    .append('\t');
            out.append(amount(n).toPlainString()).append('\t');
            out.append(warehouse(n)).append('\t');
            out.append(quantity(n).toPlainString()).append('\t');
            CopyText.value(out, distInfo(n)).append('\n');
        }
    }

    static int line(long n) {
        return (int) (n % 15) + 1;
    }

    static int district(long n) {
        return (int) (n / 15 % 10) + 1;
    }

    static int order(long n) {
        return Math.toIntExact(n / 150 + 1);
    }

    /** Orders go round four warehouses (the key is unique by district, order and line alone). */
    static int warehouse(long n) {
        return (int) (n / 150 % 4) + 1;
    }

    static int item(long n) {
        return (int) (n * 7919 % 100_000) + 1;
    }

    /** Null for every third line (not delivered yet); whole seconds within two months (no daylight-saving gap). */
    static LocalDateTime delivered(long n) {
        return n % 3 == 0 ? null : EPOCH.plusSeconds(n * 37 % 5_000_000);
    }

    /** 0.01 to 9,999.99. */
    static BigDecimal amount(long n) {
        return BigDecimal.valueOf(n * 7_717 % 999_999 + 1, 2);
    }

    static BigDecimal quantity(long n) {
        return BigDecimal.valueOf(n % 10 + 1);
    }

    /** 24 letters and digits (TPC-C's random a-string), from a fixed scramble of {@code n}. */
    static String distInfo(long n) {
        char[] c = new char[24];
        long x = (n + 1) * 0x9E3779B97F4A7C15L;
        for (int k = 0; k < c.length; k++) {
            c[k] = LETTERS.charAt((int) Long.remainderUnsigned(x, LETTERS.length()));
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return new String(c);
    }
}
