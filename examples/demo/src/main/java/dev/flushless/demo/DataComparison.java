package dev.flushless.demo;

import dev.flushless.demo.Server.Space;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Compares every table of several spaces row by row (as row text, ordered by primary key) with the first. */
final class DataComparison {

    private DataComparison() {}

    /**
     * For each space, null when every table holds the same rows as in {@code spaces.get(0)} (so the first is
     * always null), else a description of its first difference. Prints each table's row count and md5 per space.
     */
    static List<String> differences(Server server, List<Space> spaces) throws SQLException {
        List<Connection> connections = new ArrayList<>();
        try {
            for (Space space : spaces) {
                connections.add(server.connect(space));
            }
            String[] differences = new String[spaces.size()];
            for (String[] table : Model.TABLES) {
                String name = table[0];
                String key = table[1];
                List<String[]> digests = new ArrayList<>();
                for (int i = 0; i < spaces.size(); i++) {
                    digests.add(digest(connections.get(i), spaces.get(i).qualified(name), key));
                }
                String[] reference = digests.get(0);
                boolean same = digests.stream().allMatch(d -> Arrays.equals(d, reference));
                if (same) {
                    Demo.say(String.format(
                            "  %-15s %8s rows  md5 %s  (the same in %s databases)",
                            name, reference[0], reference[1], spaces.size() == 2 ? "both" : "all " + spaces.size()));
                } else {
                    for (int i = 0; i < spaces.size(); i++) {
                        Demo.say(String.format(
                                "  %-15s %8s rows  md5 %s  %s",
                                name,
                                digests.get(i)[0],
                                digests.get(i)[1],
                                spaces.get(i).label()));
                    }
                }
                for (int i = 1; i < spaces.size(); i++) {
                    if (differences[i] == null && !Arrays.equals(digests.get(i), reference)) {
                        differences[i] = "table " + name + ": "
                                + firstDifferentRow(
                                        connections.get(0),
                                        connections.get(i),
                                        spaces.get(0).qualified(name),
                                        spaces.get(i).qualified(name),
                                        key,
                                        spaces.get(0).label(),
                                        spaces.get(i).label())
                                + " (rows: " + spaces.get(0).label() + " " + reference[0] + ", "
                                + spaces.get(i).label() + " " + digests.get(i)[0] + ")";
                    }
                }
            }
            return Arrays.asList(differences);
        } finally {
            for (Connection c : connections) {
                c.close();
            }
        }
    }

    private static String[] digest(Connection c, String table, String key) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*), md5(coalesce("
                        + "string_agg(t::text, E'\\n' ORDER BY t." + key + "), '')) FROM " + table + " t")) {
            rs.next();
            return new String[] {rs.getString(1), rs.getString(2)};
        }
    }

    private static String firstDifferentRow(
            Connection a, Connection b, String tableA, String tableB, String key, String labelA, String labelB)
            throws SQLException {
        String sql = "SELECT t::text FROM %s t ORDER BY t." + key;
        try (Statement sa = a.createStatement();
                Statement sb = b.createStatement();
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
                    return "row " + n + " in primary-key order: " + labelA + " " + rowA + " vs. " + labelB + " " + rowB;
                }
            }
        }
    }
}
