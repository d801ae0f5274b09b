package dev.flushless.jdbc.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import jakarta.persistence.CascadeType;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.OneToMany;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.SessionFactory;
import org.hibernate.Transaction;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.Test;

/**
 * Hibernate 6 with {@code hibernate.jdbc.batch_size=50}, ordered inserts and updates, a versioned entity with
 * children: the same rows as bare pgjdbc, fewer statements, and a stale update still fails with the
 * optimistic-lock exception (it needs the exact per-row update count).
 */
class HibernateBatchTest {

    @Entity
    @Table(name = "purchase")
    public static class Purchase {
        @Id
        @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "purchase_seq")
        @SequenceGenerator(name = "purchase_seq", sequenceName = "purchase_seq", allocationSize = 50)
        Long id;

        @Version
        int version;

        String customer;
        BigDecimal total;

        @OneToMany(mappedBy = "purchase", cascade = CascadeType.ALL)
        List<PurchaseLine> lines = new ArrayList<>();
    }

    @Entity
    @Table(name = "purchase_line")
    public static class PurchaseLine {
        @Id
        @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "line_seq")
        @SequenceGenerator(name = "line_seq", sequenceName = "line_seq", allocationSize = 50)
        Long id;

        @ManyToOne(fetch = FetchType.LAZY, optional = false)
        Purchase purchase;

        String product;
        int quantity;
    }

    /** What one run observed: the final rows, the write statements the server ran, and the stale-update outcome. */
    record Observation(
            List<List<String>> purchases, List<List<String>> lines, long writeStatements, String staleOutcome) {}

    private static Observation run(TestDatabase db, String url) throws Exception {
        db.execute(
                "CREATE SEQUENCE purchase_seq INCREMENT BY 50",
                "CREATE SEQUENCE line_seq INCREMENT BY 50",
                "CREATE TABLE purchase (id bigint PRIMARY KEY, version int NOT NULL, customer text, total numeric(12,2))",
                "CREATE TABLE purchase_line (id bigint PRIMARY KEY, purchase_id bigint NOT NULL REFERENCES purchase,"
                        + " product text, quantity int NOT NULL)");
        Configuration configuration = new Configuration()
                .addAnnotatedClass(Purchase.class)
                .addAnnotatedClass(PurchaseLine.class)
                .setProperty("hibernate.connection.url", url)
                .setProperty("hibernate.connection.pool_size", "2")
                .setProperty("hibernate.jdbc.batch_size", "50")
                .setProperty("hibernate.order_inserts", "true")
                .setProperty("hibernate.order_updates", "true")
                .setProperty("hibernate.jdbc.batch_versioned_data", "true")
                .setProperty("hibernate.hbm2ddl.auto", "none")
                .setProperty("hibernate.show_sql", "false");
        if (db.credentials().getProperty("user") != null) {
            configuration.setProperty(
                    "hibernate.connection.username", db.credentials().getProperty("user"));
        }
        db.resetStatementCounts();
        String staleOutcome;
        try (SessionFactory factory = configuration.buildSessionFactory()) {
            factory.inTransaction(session -> {
                for (int p = 0; p < 120; p++) {
                    Purchase purchase = new Purchase();
                    purchase.customer = "customer " + p;
                    purchase.total = BigDecimal.ZERO;
                    for (int l = 0; l < 3; l++) {
                        PurchaseLine line = new PurchaseLine();
                        line.purchase = purchase;
                        line.product = "product " + (p * 3 + l);
                        line.quantity = l + 1;
                        purchase.lines.add(line);
                    }
                    session.persist(purchase);
                }
            });
            factory.inTransaction(session -> {
                for (Purchase purchase : session.createQuery(
                                "from HibernateBatchTest$Purchase order by id", Purchase.class)
                        .getResultList()) {
                    purchase.total = BigDecimal.valueOf(purchase.id % 97).add(new BigDecimal("0.25"));
                }
            });
            // A stale update: session A loaded the rows, session B changes one and commits first.
            try (var a = factory.openSession()) {
                Transaction tx = a.beginTransaction();
                List<Purchase> loaded = a.createQuery(
                                "from HibernateBatchTest$Purchase where id <= 60 order by id", Purchase.class)
                        .getResultList();
                factory.inTransaction(b -> b.find(Purchase.class, loaded.get(5).id).customer = "changed by B");
                for (Purchase purchase : loaded) {
                    purchase.customer = "changed by A";
                }
                try {
                    a.flush();
                    tx.commit();
                    staleOutcome = "committed";
                } catch (RuntimeException e) {
                    tx.rollback();
                    staleOutcome = causes(e);
                }
            }
        }
        long writes = db.statementCount("%insert into purchase%") + db.statementCount("update purchase%");
        return new Observation(
                db.rows("SELECT id, version, customer, total FROM purchase ORDER BY id"),
                db.rows("SELECT id, purchase_id, product, quantity FROM purchase_line ORDER BY id"),
                writes,
                staleOutcome);
    }

    /** The exception classes of {@code e}'s cause chain, for comparing outcomes across runs. */
    static String causes(Throwable e) {
        StringBuilder names = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            names.append(t.getClass().getName()).append(';');
        }
        return names.toString();
    }

    @Test
    void sameRowsFewerStatementsAndStaleUpdatesStillFail() throws Exception {
        TestDatabase bareDb = PostgresExtension.createDatabase("hibernate_bare");
        TestDatabase flushlessDb = PostgresExtension.createDatabase("hibernate_flushless");
        try {
            Observation bare = run(bareDb, bareDb.pgjdbcUrl());
            Observation flushless = run(flushlessDb, flushlessDb.flushlessUrl());
            assertEquals(bare.purchases(), flushless.purchases());
            assertEquals(bare.lines(), flushless.lines());
            assertEquals(120, flushless.purchases().size());
            assertEquals(360, flushless.lines().size());
            assertTrue(
                    bare.staleOutcome().contains("StaleObjectStateException")
                            || bare.staleOutcome().contains("OptimisticLock")
                            || bare.staleOutcome().contains("StaleStateException"),
                    bare.staleOutcome());
            assertEquals(bare.staleOutcome(), flushless.staleOutcome(), "the same exception as bare pgjdbc");
            if (System.getenv("FLUSHLESS_TEST_URL") == null) {
                // 120 + 360 inserts, 120 updates, 60 stale-batch updates with bare pgjdbc
                assertTrue(bare.writeStatements() >= 600, "bare ran " + bare.writeStatements());
                // 3 + 8 insert batches, 3 update batches, 2 batches of the stale flush
                assertTrue(flushless.writeStatements() <= 16, "flushless ran " + flushless.writeStatements());
                System.out.println("[hibernate] write statements: bare " + bare.writeStatements() + ", flushless "
                        + flushless.writeStatements());
            }
        } finally {
            bareDb.close();
            flushlessDb.close();
        }
    }
}
