package dev.flushless.jdbc.frameworks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.ExecutorType;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What each framework shows an application for the same error, a duplicate key in a transaction that first inserts
 * a good row, through bare pgjdbc and each Flushless mode: the exception's class, where it came (at the statement or
 * at commit), the SQLState in its cause chain, and the rows left. Batch mode must show exactly what bare pgjdbc shows;
 * transaction mode reports a buffered INSERT's error at commit (deviation 1), and this test pins what each framework
 * then shows (the table in docs/semantics.md, "Frameworks and transaction mode").
 */
@ExtendWith(PostgresExtension.class)
class FrameworkErrorsTest {

    /** What the application observed. */
    record Seen(String exception, String where, String sqlState, List<List<String>> rows, List<String> causes) {
        @Override
        public String toString() {
            return exception + " at " + where + " (" + sqlState + "), rows " + rows + ", causes " + causes;
        }
    }

    @FunctionalInterface
    interface Work {
        /** Runs the transaction; sets {@code statementsDone[0]} once every statement call has returned. */
        void run(DataSource dataSource, String url, TestDatabase db, boolean[] statementsDone) throws Exception;
    }

    private static final Map<String, Work> FRAMEWORKS = new LinkedHashMap<>();

    static {
        FRAMEWORKS.put(
                "Spring DataSourceTransactionManager",
                (ds, url, db, done) -> spring(ds, new DataSourceTransactionManager(ds), done));
        FRAMEWORKS.put(
                "Spring JdbcTransactionManager",
                (ds, url, db, done) -> spring(ds, new JdbcTransactionManager(ds), done));
        FRAMEWORKS.put("Spring, NESTED propagation", (ds, url, db, done) -> {
            DataSourceTransactionManager manager = new DataSourceTransactionManager(ds);
            JdbcTemplate jdbc = new JdbcTemplate(ds);
            TransactionTemplate nested = new TransactionTemplate(manager);
            nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
            new TransactionTemplate(manager).executeWithoutResult(outer -> {
                jdbc.update("INSERT INTO account (id, name) VALUES (?, ?)", 2, "new");
                nested.executeWithoutResult(inner -> {
                    jdbc.update("INSERT INTO account (id, name) VALUES (?, ?)", 1, "duplicate");
                    done[0] = true;
                });
            });
        });
        FRAMEWORKS.put(
                "jOOQ",
                (ds, url, db, done) -> DSL.using(ds, SQLDialect.POSTGRES).transaction(configuration -> {
                    DSL.using(configuration).execute("INSERT INTO account (id, name) VALUES (?, ?)", 2, "new");
                    DSL.using(configuration).execute("INSERT INTO account (id, name) VALUES (?, ?)", 1, "duplicate");
                    done[0] = true;
                }));
        FRAMEWORKS.put("MyBatis (BATCH executor)", (ds, url, db, done) -> {
            org.apache.ibatis.session.Configuration configuration = new org.apache.ibatis.session.Configuration(
                    new Environment("test", new JdbcTransactionFactory(), ds));
            configuration.addMapper(AccountMapper.class);
            SqlSessionFactory factory = new SqlSessionFactoryBuilder().build(configuration);
            try (SqlSession session = factory.openSession(ExecutorType.BATCH)) {
                AccountMapper mapper = session.getMapper(AccountMapper.class);
                mapper.insert(2, "new");
                mapper.insert(1, "duplicate");
                session.flushStatements();
                done[0] = true;
                session.commit();
            }
        });
        FRAMEWORKS.put("Hibernate", (ds, url, db, done) -> {
            Configuration configuration = new Configuration()
                    .addAnnotatedClass(Account.class)
                    .setProperty("hibernate.connection.url", url)
                    .setProperty("hibernate.connection.pool_size", "1")
                    .setProperty("hibernate.jdbc.batch_size", "50")
                    .setProperty("hibernate.hbm2ddl.auto", "none");
            if (db.credentials().getProperty("user") != null) {
                configuration.setProperty(
                        "hibernate.connection.username", db.credentials().getProperty("user"));
            }
            try (SessionFactory factory = configuration.buildSessionFactory();
                    org.hibernate.Session session = factory.openSession()) {
                org.hibernate.Transaction transaction = session.beginTransaction();
                session.persist(new Account(2, "new"));
                session.persist(new Account(1, "duplicate"));
                session.flush();
                done[0] = true;
                transaction.commit();
            }
        });
    }

    /** Bare pgjdbc: every framework raises its own duplicate-key exception at the statement (or at its flush). */
    private static final Map<String, String> BARE = Map.of(
            "Spring, NESTED propagation", "org.springframework.dao.DuplicateKeyException at statement",
            "Spring DataSourceTransactionManager", "org.springframework.dao.DuplicateKeyException at statement",
            "Spring JdbcTransactionManager", "org.springframework.dao.DuplicateKeyException at statement",
            "jOOQ", "org.jooq.exception.IntegrityConstraintViolationException at statement",
            "MyBatis (BATCH executor)", "org.apache.ibatis.exceptions.PersistenceException at statement",
            "Hibernate", "org.hibernate.exception.ConstraintViolationException at statement");

    /**
     * Transaction mode: the buffered INSERTs fail when commit sends them. The driver raises pgjdbc's exception class
     * (a {@code PSQLException} with the server's SQLState and message) from {@code commit()}; what the application
     * sees is then the framework's handling of a failed commit. Inside a savepoint (Spring's NESTED propagation)
     * nothing is buffered, so the statement itself fails as under bare pgjdbc.
     */
    private static final Map<String, String> TRANSACTION_MODE = Map.of(
            "Spring, NESTED propagation", "org.springframework.dao.DuplicateKeyException at statement",
            "Spring DataSourceTransactionManager",
                    "org.springframework.transaction.TransactionSystemException at commit",
            "Spring JdbcTransactionManager", "org.springframework.dao.DuplicateKeyException at commit",
            "jOOQ", "org.jooq.exception.DataAccessException at commit",
            "MyBatis (BATCH executor)", "org.apache.ibatis.exceptions.PersistenceException at commit",
            "Hibernate", "org.hibernate.TransactionException at commit");

    @Test
    void batchModeShowsEveryFrameworkWhatBarePgjdbcShows(TestDatabase db) throws Exception {
        for (String framework : FRAMEWORKS.keySet()) {
            Seen bare = run(db, framework, null);
            assertEquals(BARE.get(framework), bare.exception() + " at " + bare.where(), framework + ": " + bare);
            assertEquals("23505", bare.sqlState(), framework);
            Seen batch = run(db, framework, "batch");
            assertEquals(bare, batch, framework);
        }
    }

    @Test
    void transactionModeReportsTheErrorAtCommitWithTheServersSqlStateAndRollsBack(TestDatabase db) throws Exception {
        for (String framework : FRAMEWORKS.keySet()) {
            Seen bare = run(db, framework, null);
            Seen transaction = run(db, framework, "transaction");
            assertEquals(
                    TRANSACTION_MODE.get(framework),
                    transaction.exception() + " at " + transaction.where(),
                    framework + ": " + transaction);
            assertEquals("23505", transaction.sqlState(), framework + ": the cause chain keeps the server's SQLState");
            assertEquals(bare.rows(), transaction.rows(), framework + ": nothing of the transaction is committed");
            System.out.println("[frameworks] " + framework + ": bare " + bare + "; transaction mode " + transaction);
        }
    }

    private static Seen run(TestDatabase db, String framework, String mode) throws Exception {
        db.execute(
                "DROP TABLE IF EXISTS account",
                "CREATE TABLE account (id int PRIMARY KEY, name text)",
                "INSERT INTO account VALUES (1, 'existing')");
        String url = mode == null ? db.pgjdbcUrl() : db.flushlessUrl("flushless.mode=" + mode);
        DriverManagerDataSource dataSource = new DriverManagerDataSource(url);
        dataSource.setConnectionProperties(db.credentials());
        boolean[] done = {false};
        String exception = "none";
        String sqlState = null;
        List<String> causes = new java.util.ArrayList<>();
        try {
            FRAMEWORKS.get(framework).run(dataSource, url, db, done);
        } catch (Exception e) {
            exception = e.getClass().getName();
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof SQLException sql && sql.getSQLState() != null && sqlState == null) {
                    sqlState = sql.getSQLState();
                }
                causes.add(t.getClass().getSimpleName());
            }
        }
        return new Seen(
                exception,
                done[0] ? "commit" : "statement",
                sqlState,
                db.rows("SELECT id, name FROM account ORDER BY id"),
                causes);
    }

    private static void spring(DataSource dataSource, PlatformTransactionManager manager, boolean[] done) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        new TransactionTemplate(manager).executeWithoutResult(status -> {
            jdbc.update("INSERT INTO account (id, name) VALUES (?, ?)", 2, "new");
            jdbc.update("INSERT INTO account (id, name) VALUES (?, ?)", 1, "duplicate");
            done[0] = true;
        });
    }

    /** MyBatis's mapper for the test table. */
    public interface AccountMapper {
        @Insert("INSERT INTO account (id, name) VALUES (#{id}, #{name})")
        int insert(@Param("id") int id, @Param("name") String name);
    }

    /** Hibernate's entity for the test table (ids assigned by the application). */
    @Entity
    @Table(name = "account")
    public static class Account {
        @Id
        int id;

        String name;

        public Account() {}

        Account(int id, String name) {
            this.id = id;
            this.name = name;
        }
    }
}
