package dev.flushless.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * Runs the example as its pom's comment says (its main method with a {@code jdbc:flushless:} URL) against an
 * embedded PostgreSQL, and checks what it printed and the rows it left.
 */
class PlainJdbcTest {

    @Test
    void runsAsDocumented() throws Exception {
        try (EmbeddedPostgres server = EmbeddedPostgres.builder().start()) {
            check(server.getJdbcUrl("postgres", "postgres"));
        }
    }

    private static void check(String pgjdbcUrl) throws Exception {
        String flushlessUrl = "jdbc:flushless:" + pgjdbcUrl.substring("jdbc:".length());
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = System.out;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            PlainJdbc.main(new String[] {flushlessUrl});
        } finally {
            System.setOut(out);
        }
        String output = printed.toString(StandardCharsets.UTF_8);
        System.out.print(output);
        assertTrue(output.contains("inserted 1000 rows"), output);
        assertTrue(output.contains("updated 1000 rows"), output);
        assertTrue(output.contains("Flushless: "), output);
        try (Connection c = DriverManager.getConnection(pgjdbcUrl);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*), sum(price) FROM example_item")) {
            rs.next();
            assertEquals(1000, rs.getInt(1));
            assertEquals(new java.math.BigDecimal("10010.00"), rs.getBigDecimal(2)); // 2 * (1 + ... + 1000) / 100
        }
    }
}
