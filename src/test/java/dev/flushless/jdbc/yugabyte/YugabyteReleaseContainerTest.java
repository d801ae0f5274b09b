package dev.flushless.jdbc.yugabyte;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.session.ServerFacts;
import dev.flushless.jdbc.stats.FlushlessReport;
import dev.flushless.jdbc.stats.YugabyteFlushModel;
import dev.flushless.jdbc.stats.YugabyteRelease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The container tests every YugabyteDB release runs (one subclass per release, each starting its own container):
 * the server reports what the flush model's release table says of it, {@code flushless.onConflict=auto} takes the
 * form that release needs and gives bare pgjdbc's counts and rows, transactions give bare pgjdbc's rows, both in
 * {@code flushless.mode=batch} and {@code transaction}, and the model's flush counts are the server's own
 * ({@code EXPLAIN (ANALYZE, DIST)}, "Storage Flush Requests"). They run only where Docker is available; elsewhere they
 * are skipped with the reason printed. The same rules are tested without a server by {@code ServerFactsTest} and
 * {@code YugabyteFlushModelTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class YugabyteReleaseContainerTest {

    private YugabyteContainer yugabyte;

    /** The image to start. */
    abstract String image();

    /** The release series the image must report ({@code 2024.2}), or {@code null} for any (the newest). */
    abstract String series();

    @BeforeAll
    void start() {
        yugabyte = YugabyteContainer.start(
                image(), "YugabyteDB container tests " + getClass().getSimpleName());
    }

    @AfterAll
    void stop() {
        if (yugabyte != null) {
            yugabyte.close();
        }
    }

    @BeforeEach
    void needsDocker() {
        yugabyte.assumeRunning();
    }

    /** The running container (for a release's own tests). */
    YugabyteContainer yugabyte() {
        return yugabyte;
    }

    private static Connection pgjdbc(Connection c) throws SQLException {
        return (Connection) c.unwrap(org.postgresql.PGConnection.class);
    }

    @Test
    void theServerReportsWhatItsReleaseDoesByDefault() throws Exception {
        try (Connection c = yugabyte.connect("")) {
            ServerFacts facts = ServerFacts.of(pgjdbc(c));
            assertTrue(facts.yugabyte(), facts.toString());
            YugabyteRelease release = facts.release();
            if (series() != null) {
                assertEquals(series(), release.series(), facts.toString());
            }
            YugabyteFlushModel model = facts.flushModel(pgjdbc(c));
            YugabyteFlushModel expected = YugabyteFlushModel.releaseDefaults(release);
            assertEquals(expected.onConflictBatched(), model.onConflictBatched(), "ON CONFLICT batching of " + release);
            assertEquals(expected.isolation(), model.isolation(), "effective isolation of " + release);
            assertEquals(
                    release.postgresMajor() >= 15, !(release.stable() && release.major() < 2025), facts.toString());
            assertEquals(
                    !model.onConflictBatched(),
                    facts.antiJoin(FlushlessConfig.OnConflict.AUTO, pgjdbc(c)),
                    "auto takes the anti-join exactly where the server does not batch");
            YugabyteFlushModel connections = c.unwrap(FlushlessConnection.class).flushModel();
            assertEquals(0, release.compareTo(connections.release()), "the connection's model knows the release");
            assertEquals(
                    release.writePipeliningByDefault(), connections.writePipelining(), "auto: the release's default");
            System.out.println("[flushless tests] " + image() + ": " + String.join("; ", model.describe()));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"batch", "transaction"})
    void upsertBatchesTakeTheFormTheReleaseNeedsAndGiveBarePgjdbcsCounts(String mode) throws Exception {
        List<String> results = new ArrayList<>();
        boolean batched = false;
        for (String variant : new String[] {null, "flushless.mode=" + mode + "&flushless.onConflict=auto"}) {
            String table = variant == null ? "up_bare_" + mode : "up_flushless_" + mode;
            try (Connection c = yugabyte.connect(variant)) {
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE IF EXISTS " + table);
                    s.execute("CREATE TABLE " + table + " (k int PRIMARY KEY, code int UNIQUE, v text)");
                    s.execute("INSERT INTO " + table + " VALUES (1, 1, 'old'), (3, 3, 'old')");
                }
                c.setAutoCommit(false); // transaction mode buffers inside explicit transactions
                PreparedStatement nothing = c.prepareStatement(
                        "INSERT INTO " + table + " (k, code, v) VALUES (?, ?, ?) ON CONFLICT (k) DO NOTHING");
                PreparedStatement update = c.prepareStatement("INSERT INTO " + table
                        + " (k, code, v) VALUES (?, ?, ?) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v || '+' || "
                        + table + ".v");
                for (int k : new int[] {1, 2, 2, 3, 4, 5, 4}) {
                    nothing.setInt(1, k);
                    nothing.setInt(2, 100 + k);
                    nothing.setString(3, "n" + k);
                    nothing.addBatch();
                    update.setInt(1, k + 3);
                    update.setInt(2, 200 + k);
                    update.setString(3, "u" + k);
                    update.addBatch();
                }
                results.add(Arrays.toString(nothing.executeBatch()) + Arrays.toString(update.executeBatch()));
                c.commit();
                results.add(rows(c, "SELECT k, code, v FROM " + table + " ORDER BY k"));
                if (variant != null) {
                    batched = c.unwrap(FlushlessConnection.class).flushModel().onConflictBatched();
                    FlushlessReport report = c.unwrap(FlushlessConnection.class).report();
                    boolean antiJoin = report.rewrites().keySet().stream().anyMatch(k -> k.endsWith("-antijoin"));
                    assertEquals(!batched, antiJoin, "anti-join exactly where the server does not batch: " + report);
                    assertFalse(report.rewrites().isEmpty(), report.toString());
                }
            }
        }
        assertEquals(results.get(0), results.get(2), "counts (ON CONFLICT batched by the server: " + batched + ")");
        assertEquals(results.get(1), results.get(3), "rows");
    }

    @ParameterizedTest
    @ValueSource(strings = {"batch", "transaction"})
    void transactionsGiveBarePgjdbcsCountsAndRows(String mode) throws Exception {
        List<String> results = new ArrayList<>();
        for (String variant : new String[] {null, "flushless.mode=" + mode}) {
            String suffix = (variant == null ? "_bare_" : "_flushless_") + mode;
            try (Connection c = yugabyte.connect(variant)) {
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE IF EXISTS child" + suffix);
                    s.execute("DROP TABLE IF EXISTS parent" + suffix);
                    s.execute("CREATE TABLE parent" + suffix + " (id int PRIMARY KEY, name text)");
                    s.execute("CREATE TABLE child" + suffix + " (id int PRIMARY KEY, parent_id int REFERENCES parent"
                            + suffix + " (id), qty int)");
                }
                c.setAutoCommit(false);
                List<Object> counts = new ArrayList<>();
                try (PreparedStatement parents = c.prepareStatement("INSERT INTO parent" + suffix + " VALUES (?, ?)");
                        PreparedStatement children =
                                c.prepareStatement("INSERT INTO child" + suffix + " VALUES (?, ?, ?)");
                        PreparedStatement qty =
                                c.prepareStatement("UPDATE child" + suffix + " SET qty = qty + ? WHERE id = ?")) {
                    for (int i = 1; i <= 200; i++) {
                        parents.setInt(1, i);
                        parents.setString(2, "p" + i);
                        parents.addBatch();
                    }
                    counts.add(Arrays.toString(parents.executeBatch()));
                    for (int i = 1; i <= 400; i++) {
                        children.setInt(1, i);
                        children.setInt(2, 1 + i % 200);
                        children.setInt(3, i);
                        children.addBatch();
                    }
                    counts.add(Arrays.toString(children.executeBatch()));
                    for (int i = 401; i <= 420; i++) { // single INSERTs: transaction mode buffers them
                        children.setInt(1, i);
                        children.setInt(2, 7);
                        children.setInt(3, i);
                        counts.add(children.executeUpdate());
                    }
                    for (int i = 1; i <= 450; i += 9) {
                        qty.setInt(1, 1000);
                        qty.setInt(2, i);
                        qty.addBatch();
                    }
                    counts.add(Arrays.toString(qty.executeBatch()));
                }
                c.commit();
                results.add(counts.toString());
                results.add(rows(
                        c,
                        "SELECT c.id, c.parent_id, c.qty, p.name FROM child" + suffix + " c JOIN parent" + suffix
                                + " p ON p.id = c.parent_id ORDER BY c.id"));
                if (variant != null) {
                    FlushlessReport report = c.unwrap(FlushlessConnection.class).report();
                    assertTrue(report.rewrites().size() >= 2, report.toString());
                    if (mode.equals("transaction")) {
                        assertTrue(report.rewrites().containsKey("transaction-buffer"), report.toString());
                    }
                    assertTrue(report.estimatedFlushesAfter() < report.estimatedFlushesBefore(), report.toString());
                }
            }
        }
        assertEquals(results.get(0), results.get(2), "counts");
        assertEquals(results.get(1), results.get(3), "rows");
    }

    private static final Pattern FLUSHES = Pattern.compile("Storage Flush Requests:\\s*(\\d+)");

    /** The model's flushes against the server's own count (EXPLAIN (ANALYZE, DIST), as the reference article read it). */
    @Test
    void theModelCountsTheFlushesTheServerCounts() throws Exception {
        try (Connection c = yugabyte.connect(null);
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS flush_probe");
            s.execute("CREATE TABLE flush_probe (id bigint PRIMARY KEY, v int)");
            YugabyteFlushModel model = ServerFacts.of(c).flushModel(c);
            long insert = flushes(
                    s,
                    "EXPLAIN (ANALYZE, DIST) INSERT INTO flush_probe SELECT g, 0"
                            + " FROM generate_series(1, 30000) g");
            assertEquals(model.writeStatement(30_000), insert, "a 30,000-row INSERT");
            long upsert = flushes(
                    s,
                    "EXPLAIN (ANALYZE, DIST) INSERT INTO flush_probe SELECT g, 1"
                            + " FROM generate_series(29001, 31000) g ON CONFLICT (id) DO NOTHING");
            if (model.onConflictBatched()) {
                assertTrue(upsert <= 20, "batched ON CONFLICT of 2,000 rows: " + upsert + " flushes");
            } else {
                assertTrue(upsert >= 900, "ON CONFLICT flushing once per row inserted (1,000): " + upsert + " flushes");
            }
        }
    }

    private static long flushes(Statement s, String explain) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs = s.executeQuery(explain)) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        Matcher m = FLUSHES.matcher(plan);
        long last = -1;
        while (m.find()) {
            last = Long.parseLong(m.group(1));
        }
        assertTrue(last >= 0, "no Storage Flush Requests in:\n" + plan);
        return last;
    }

    static String rows(Connection c, String query) throws SQLException {
        StringBuilder rows = new StringBuilder();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(query)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                for (int i = 1; i <= columns; i++) {
                    rows.append(i == 1 ? "" : "/").append(rs.getString(i));
                }
                rows.append(' ');
            }
        }
        return rows.toString();
    }
}
