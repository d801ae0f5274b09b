package dev.flushless.demo;

import dev.flushless.demo.Server.Space;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Compares every table of two spaces row by row (as row text, ordered by primary key). */
final class DataComparison {

    private DataComparison() {
    }

    /** Null when every table holds the same rows in both spaces, else a description of the first difference. */
    static String firstDifference(Server server, Space bare, Space flushless) throws SQLException {
        try (Connection a = server.connect(bare); Connection b = server.connect(flushless)) {
            for (String[] table : Model.TABLES) {
                String name = table[0];
                String key = table[1];
                String[] digestA = digest(a, bare.qualified(name), key);
                String[] digestB = digest(b, flushless.qualified(name), key);
                Demo.say(String.format("  %-15s %8s rows  md5 %s  |  %8s rows  md5 %s", name, digestA[0], digestA[1],
                        digestB[0], digestB[1]));
                if (!digestA[0].equals(digestB[0]) || !digestA[1].equals(digestB[1])) {
                    return "table " + name + ": " + firstDifferentRow(a, b, bare.qualified(name),
                            flushless.qualified(name), key) + " (rows: bare " + digestA[0] + ", Flushless " + digestB[0] + ")";
                }
            }
        }
        return null;
    }

    private static String[] digest(Connection c, String table, String key) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*), md5(coalesce("
                + "string_agg(t::text, E'\\n' ORDER BY t." + key + "), '')) FROM " + table + " t")) {
            rs.next();
            return new String[] {rs.getString(1), rs.getString(2)};
        }
    }

    private static String firstDifferentRow(Connection a, Connection b, String tableA, String tableB, String key)
            throws SQLException {
        String sql = "SELECT t::text FROM %s t ORDER BY t." + key;
        try (Statement sa = a.createStatement(); Statement sb = b.createStatement();
                ResultSet ra = sa.executeQuery(String.format(sql, tableA));
                ResultSet rb = sb.executeQuery(String.format(sql, tableB))) {
            long n = 0;
            while (true) {
                boolean hasA = ra.next();
                boolean hasB = rb.next();
                n++;
                if (!hasA && !hasB) {
                    return "same rows in a different form";
                }
                String rowA = hasA ? ra.getString(1) : "(no row)";
                String rowB = hasB ? rb.getString(1) : "(no row)";
                if (!rowA.equals(rowB)) {
                    return "row " + n + " in primary-key order: bare " + rowA + " vs. Flushless " + rowB;
                }
            }
        }
    }
}
