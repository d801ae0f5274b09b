package dev.flushless.jdbc.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.hibernate.HibernateBatchTest.Purchase;
import dev.flushless.jdbc.hibernate.HibernateBatchTest.PurchaseLine;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.RoundTripCountingSocketFactory;
import dev.flushless.jdbc.testing.TestDatabase;
import java.math.BigDecimal;
import java.util.List;
import java.util.UUID;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.Transaction;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.Test;

/**
 * Hibernate 6 on {@code flushless.mode=transaction} (sequence ids with the pooled optimizer, a versioned parent
 * with a child collection, {@code hibernate.jdbc.batch_size=50}): a transaction that persists hundreds of
 * parents and children reaches the server as its sequence fetches plus one round trip for all its writes and
 * the commit; updates and deletes are coalesced; the rows are those of bare pgjdbc; and a stale update still
 * throws the optimistic-lock exception.
 */
class HibernateTransactionModeTest {

    /** What one run observed. */
    record Observation(
            List<List<String>> purchases,
            List<List<String>> lines,
            long persistRoundTrips,
            long persistSequenceCalls,
            long persistInsertStatements,
            long updateStatements,
            long deleteStatements,
            String staleOutcome) {
        String counts() {
            return "persist: " + persistRoundTrips + " round trips, " + persistSequenceCalls + " sequence calls, "
                    + persistInsertStatements + " insert statements; update statements " + updateStatements
                    + "; delete statements " + deleteStatements;
        }
    }

    private static SessionFactory factory(TestDatabase db, String url) {
        Configuration configuration = new Configuration()
                .addAnnotatedClass(Purchase.class)
                .addAnnotatedClass(PurchaseLine.class)
                .setProperty("hibernate.connection.url", url)
                .setProperty("hibernate.connection.pool_size", "1")
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
        return configuration.buildSessionFactory();
    }

    private static void persist(Session session, int first, int count) {
        for (int p = first; p < first + count; p++) {
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
    }

    private static Observation run(TestDatabase db, String url) throws Exception {
        db.execute(
                "CREATE SEQUENCE purchase_seq INCREMENT BY 50",
                "CREATE SEQUENCE line_seq INCREMENT BY 50",
                "CREATE TABLE purchase (id bigint PRIMARY KEY, version int NOT NULL, customer text, total numeric(12,2))",
                "CREATE TABLE purchase_line (id bigint PRIMARY KEY, purchase_id bigint NOT NULL REFERENCES purchase,"
                        + " product text, quantity int NOT NULL)");
        String key = "hibernate-" + UUID.randomUUID();
        String counted = url + (url.contains("?") ? "&" : "?") + "socketFactory="
                + RoundTripCountingSocketFactory.class.getName() + "&socketFactoryArg=" + key;
        RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter(key);
        String staleOutcome;
        long roundTrips;
        long sequenceCalls;
        long inserts;
        long updates;
        long deletes;
        try (SessionFactory factory = factory(db, counted)) {
            factory.inTransaction(session -> persist(session, 0, 2)); // warm-up: the connection and its catalog facts
            db.resetStatementCounts();
            socket.reset();
            factory.inTransaction(session -> persist(session, 2, 200));
            roundTrips = socket.roundTrips();
            sequenceCalls = db.statementCount("%nextval%");
            inserts = db.statementCount("%insert into purchase%");

            db.resetStatementCounts();
            factory.inTransaction(session -> {
                for (Purchase purchase : session.createQuery(
                                "from HibernateBatchTest$Purchase order by id", Purchase.class)
                        .getResultList()) {
                    purchase.total = BigDecimal.valueOf(purchase.id % 97).add(new BigDecimal("0.25"));
                }
            });
            updates = db.statementCount("%update purchase %");

            db.resetStatementCounts();
            factory.inTransaction(session -> {
                for (Purchase purchase : session.createQuery(
                                "from HibernateBatchTest$Purchase where id % 3 = 0", Purchase.class)
                        .getResultList()) {
                    for (PurchaseLine line : purchase.lines) {
                        session.remove(line);
                    }
                    purchase.lines.clear();
                }
            });
            deletes = db.statementCount("%delete from purchase_line%");

            // A stale update: this session loaded the rows, another transaction changes one and commits first.
            try (Session a = factory.openSession()) {
                Transaction tx = a.beginTransaction();
                List<Purchase> loaded = a.createQuery(
                                "from HibernateBatchTest$Purchase where id <= 60 order by id", Purchase.class)
                        .getResultList();
                db.execute("UPDATE purchase SET customer = 'changed elsewhere', version = version + 1 WHERE id = "
                        + loaded.get(5).id);
                for (Purchase purchase : loaded) {
                    purchase.customer = "changed by A";
                }
                try {
                    a.flush();
                    tx.commit();
                    staleOutcome = "committed";
                } catch (RuntimeException e) {
                    tx.rollback();
                    staleOutcome = HibernateBatchTest.causes(e);
                }
            }
        }
        return new Observation(
                db.rows("SELECT id, version, customer, total FROM purchase ORDER BY id"),
                db.rows("SELECT id, purchase_id, product, quantity FROM purchase_line ORDER BY id"),
                roundTrips,
                sequenceCalls,
                inserts,
                updates,
                deletes,
                staleOutcome);
    }

    @Test
    void persistTransactionIsItsSequenceFetchesPlusOneRoundTripAndEverythingElseMatchesBarePgjdbc() throws Exception {
        TestDatabase bareDb = PostgresExtension.createDatabase("hibernate_tx_bare");
        TestDatabase flushlessDb = PostgresExtension.createDatabase("hibernate_tx_flushless");
        try {
            bareDb.assumeStatementStats();
            Observation bare = run(bareDb, bareDb.pgjdbcUrl());
            Observation flushless = run(flushlessDb, flushlessDb.flushlessUrl("flushless.mode=transaction"));
            System.out.println(
                    "[hibernate, mode=transaction] bare " + bare.counts() + "\n  flushless " + flushless.counts());

            assertEquals(bare.purchases(), flushless.purchases());
            assertEquals(bare.lines(), flushless.lines());
            assertEquals(202, flushless.purchases().size());

            assertTrue(flushless.persistSequenceCalls() > 0);
            assertEquals(bare.persistSequenceCalls(), flushless.persistSequenceCalls());
            assertEquals(
                    flushless.persistSequenceCalls() + 1,
                    flushless.persistRoundTrips(),
                    "the sequence fetches, then one round trip for all the inserts and the commit");
            assertEquals(1, flushless.persistInsertStatements(), "parents and children in one chained statement");
            assertTrue(
                    bare.persistRoundTrips() > flushless.persistRoundTrips() + 2, "bare: " + bare.persistRoundTrips());

            assertTrue(
                    flushless.updateStatements() > 0 && flushless.updateStatements() < bare.updateStatements() / 10,
                    "updates coalesced: " + flushless.updateStatements() + " vs " + bare.updateStatements());
            assertTrue(
                    flushless.deleteStatements() < bare.deleteStatements() / 10,
                    "deletes coalesced: " + flushless.deleteStatements() + " vs " + bare.deleteStatements());

            assertTrue(
                    bare.staleOutcome().contains("OptimisticLock")
                            || bare.staleOutcome().contains("StaleObjectState")
                            || bare.staleOutcome().contains("StaleStateException"),
                    bare.staleOutcome());
            assertEquals(bare.staleOutcome(), flushless.staleOutcome(), "the same exception as bare pgjdbc");
        } finally {
            bareDb.close();
            flushlessDb.close();
        }
    }
}
