package dev.flushless.jdbc.wrapper;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.math.BigDecimal;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A batch that runs as sent from its recorded rows sets each row's values as the application's calls did, including
 * the type pgjdbc keeps when a NULL of no particular type ({@code setNull(i, Types.ARRAY)}) is set over an earlier
 * value: bare pgjdbc then reuses the statement it prepared for the earlier rows. Found by the differential tester
 * (seed 8800186, {@code flushless.exactSequences=true}): the replay, clearing the parameters before every row, made
 * pgjdbc parse the statement again, and the failing row's value then failed while the server planned the INSERT,
 * before the serial default drew an id; bare pgjdbc drew one more.
 */
@ExtendWith(PostgresExtension.class)
class UntypedNullReplayTest {

    private static final Object[][] ROWS = {
        {new Integer[] {}, "7"},
        {new Integer[] {}, "1.5"},
        {new Integer[] {1, 3}, "7"},
        {new Integer[] {}, "1.5"},
        {null, "2.25"},
        {new Integer[] {4, 3}, "1000000.00"} // numeric(8,2) overflow: 22003
    };

    @Test
    void aFailingBatchDrawsBarePgjdbcsIdsWithAnUntypedNullAmongItsRows(TestDatabase db) throws SQLException {
        for (boolean clearEachRow : new boolean[] {false, true}) {
            assertEquals(
                    run(db, false, clearEachRow),
                    run(db, true, clearEachRow),
                    "clearParameters per row: " + clearEachRow);
        }
    }

    /** The batch on bare pgjdbc or Flushless (every batch as sent: exactSequences); its error and the sequence after. */
    private static List<Object> run(TestDatabase db, boolean flushless, boolean clearEachRow) throws SQLException {
        db.execute(
                "DROP TABLE IF EXISTS untyped_null",
                "CREATE TABLE untyped_null (id serial PRIMARY KEY, c1 int[], c2 numeric(8,2) NOT NULL)");
        String error = null;
        try (Connection c = flushless
                ? DriverManager.getConnection(db.flushlessUrl("flushless.exactSequences=true"), db.credentials())
                : db.bare()) {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO untyped_null (c1, c2) VALUES (?, ?)")) {
                for (Object[] row : ROWS) {
                    if (clearEachRow) {
                        ps.clearParameters();
                    }
                    if (row[0] == null) {
                        ps.setNull(1, Types.ARRAY);
                    } else {
                        ps.setArray(1, c.createArrayOf("int4", (Integer[]) row[0]));
                    }
                    ps.setBigDecimal(2, new BigDecimal((String) row[1]));
                    ps.addBatch();
                }
                ps.executeBatch();
            } catch (BatchUpdateException e) {
                error = e.getSQLState();
            }
        }
        return List.of(String.valueOf(error), db.rows("SELECT last_value, is_called FROM untyped_null_id_seq"));
    }
}
