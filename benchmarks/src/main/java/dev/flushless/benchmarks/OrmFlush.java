package dev.flushless.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * One ORM flush as Hibernate sends it with {@code jdbc.batch_size}, {@code order_inserts}, {@code order_updates}
 * and {@code batch_versioned_data}: a batch inserting {@code parents} new parents, a batch inserting their
 * children ({@code childrenPerParent} each), a batch of {@code updates} versioned updates of existing parents
 * (every count checked), then COMMIT; each batch through a fresh {@code prepareStatement} (Hibernate closes its
 * statements at the end of the flush). Ids are assigned by the client (as a pooled sequence optimizer does
 * between its rare {@code nextval} calls). W5 runs it at 10 parents, 50 children and 10 updates, W9 at 5, 20
 * and 5. Hand-written: one {@code WITH p AS (INSERT parents), c AS (INSERT children), u AS (UPDATE other
 * parents) SELECT ..} in autocommit, correct only because the updated parents are not the inserted ones (an
 * UPDATE in a WITH does not see rows inserted by the same statement): a careful engineer knows it, a driver
 * cannot assume it.
 */
final class OrmFlush {

    static final int SEEDED = 10_000;

    private final Harness h;
    private final String parentTable;
    private final String childTable;
    private final int parents;
    private final int childrenPerParent;
    private final int updates;
    private final int[] versions = new int[SEEDED];
    private long nextParent = 1_000_000;
    private long nextChild = 1;
    private long op;

    /** Creates {@code <prefix>_parent} and {@code <prefix>_child} (dropped first) and seeds the parents. */
    OrmFlush(Harness h, String prefix, int parents, int childrenPerParent, int updates) throws SQLException {
        this.h = h;
        this.parentTable = prefix + "_parent";
        this.childTable = prefix + "_child";
        this.parents = parents;
        this.childrenPerParent = childrenPerParent;
        this.updates = updates;
        h.house(
                "DROP TABLE IF EXISTS " + childTable,
                "DROP TABLE IF EXISTS " + parentTable,
                "CREATE TABLE " + parentTable + " (id bigint PRIMARY KEY, name text NOT NULL, version int NOT NULL,"
                        + " children int NOT NULL)",
                "CREATE TABLE " + childTable + " (id bigint PRIMARY KEY, parent_id bigint NOT NULL REFERENCES "
                        + parentTable + ", name text NOT NULL)",
                "CREATE INDEX ON " + childTable + " (parent_id)",
                "INSERT INTO " + parentTable + " SELECT g, 'seed', 0, 0 FROM generate_series(0, " + (SEEDED - 1)
                        + ") g",
                "ANALYZE " + parentTable);
        h.app().setAutoCommit(!h.variant().applicationCode());
    }

    /** One operation: the flush and its commit; returns the rows written. */
    int flush() throws SQLException {
        h.op();
        Connection c = h.app();
        long[] parentIds = new long[parents];
        String[] parentNames = new String[parents];
        long[] children = new long[parents * childrenPerParent];
        long[] childParents = new long[children.length];
        String[] childNames = new String[children.length];
        for (int p = 0; p < parents; p++) {
            parentIds[p] = nextParent++;
            parentNames[p] = "parent " + parentIds[p];
            for (int k = 0; k < childrenPerParent; k++) {
                int i = p * childrenPerParent + k;
                children[i] = nextChild++;
                childParents[i] = parentIds[p];
                childNames[i] = "child " + k;
            }
        }
        int firstUpdated = (int) (op * updates % SEEDED); // updates divides SEEDED: ids stay below it
        op++;
        String newName = "renamed " + op;
        if (h.variant().applicationCode()) {
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO " + parentTable + " (name, version, children, id) VALUES (?, ?, ?, ?)")) {
                for (int p = 0; p < parents; p++) {
                    ps.setString(1, parentNames[p]);
                    ps.setInt(2, 0);
                    ps.setInt(3, childrenPerParent);
                    ps.setLong(4, parentIds[p]);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            try (PreparedStatement ps =
                    c.prepareStatement("INSERT INTO " + childTable + " (parent_id, name, id) VALUES (?, ?, ?)")) {
                for (int i = 0; i < children.length; i++) {
                    ps.setLong(1, childParents[i]);
                    ps.setString(2, childNames[i]);
                    ps.setLong(3, children[i]);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE " + parentTable + " SET name = ?, version = ? WHERE id = ? AND version = ?")) {
                for (int u = 0; u < updates; u++) {
                    int id = firstUpdated + u;
                    ps.setString(1, newName);
                    ps.setInt(2, versions[id] + 1);
                    ps.setLong(3, id);
                    ps.setInt(4, versions[id]);
                    ps.addBatch();
                }
                for (int count : ps.executeBatch()) {
                    if (count != 1) {
                        c.rollback();
                        throw new IllegalStateException("optimistic lock failure: update count " + count);
                    }
                }
            }
            c.commit();
        } else {
            long[] updated = new long[updates];
            String[] names = new String[updates];
            int[] old = new int[updates];
            for (int u = 0; u < updates; u++) {
                updated[u] = firstUpdated + u;
                names[u] = newName;
                old[u] = versions[firstUpdated + u];
            }
            try (PreparedStatement ps =
                    c.prepareStatement("WITH p AS (INSERT INTO " + parentTable + " (id, name, version, children)"
                            + " SELECT id, name, 0, " + childrenPerParent
                            + " FROM unnest(?::bigint[], ?::text[]) AS x(id, name)),"
                            + " c AS (INSERT INTO " + childTable + " (id, parent_id, name)"
                            + " SELECT * FROM unnest(?::bigint[], ?::bigint[], ?::text[])),"
                            + " u AS (UPDATE " + parentTable + " t SET name = x.name, version = x.version + 1"
                            + " FROM unnest(?::bigint[], ?::text[], ?::int[]) AS x(id, name, version)"
                            + " WHERE t.id = x.id AND t.version = x.version RETURNING 1)"
                            + " SELECT count(*) / (count(*) = ?)::int FROM u")) {
                ps.setObject(1, parentIds);
                ps.setObject(2, parentNames);
                ps.setObject(3, children);
                ps.setObject(4, childParents);
                ps.setObject(5, childNames);
                ps.setObject(6, updated);
                ps.setObject(7, names);
                ps.setObject(8, old);
                ps.setLong(9, updates);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) != updates) {
                        throw new IllegalStateException("updated " + rs.getInt(1) + " parents");
                    }
                }
            }
        }
        for (int u = 0; u < updates; u++) {
            versions[firstUpdated + u]++;
        }
        return parents + children.length + updates;
    }
}
