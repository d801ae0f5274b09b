package dev.flushless.jdbc.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.Set;

/**
 * A real primary and a real hot standby streaming from it, both from the embedded (zonky) binaries, for replica-read
 * tests and benchmarks: the primary starts with {@code wal_level=replica}; a base copy of its running data directory
 * is taken between {@code pg_backup_start}/{@code pg_backup_stop} ({@code pg_start_backup}/{@code pg_stop_backup}
 * before PostgreSQL 15), with a physical replication slot holding the WAL; the copy becomes a standby
 * ({@code recovery.conf} on 11, {@code standby.signal} and {@code primary_conninfo} from 12) and starts; the pair is
 * ready once the standby streams and has replayed the primary's position. The PostgreSQL major is the build's
 * (-Ppostgres11 for 11). Start one per test class: it costs a few seconds.
 */
public final class StandbyPair implements AutoCloseable {

    private final EmbeddedPostgres primary;
    private final EmbeddedPostgres standby;
    private final Path root;
    /** {@code server_version_num} of both. */
    public final int versionNum;

    private StandbyPair(EmbeddedPostgres primary, EmbeddedPostgres standby, Path root, int versionNum) {
        this.primary = primary;
        this.standby = standby;
        this.root = root;
        this.versionNum = versionNum;
    }

    /** Starts a primary and one standby of it, and waits until the standby streams. */
    public static StandbyPair start() throws IOException, SQLException {
        Path root = Files.createTempDirectory("flushless-standby-pair");
        Path primaryDir = root.resolve("primary");
        EmbeddedPostgres primary = EmbeddedPostgres.builder()
                .setDataDirectory(primaryDir)
                .setCleanDataDirectory(true)
                .setServerConfig("wal_level", "replica")
                .setServerConfig("max_wal_senders", "4")
                .setServerConfig("max_replication_slots", "4")
                .setServerConfig("hot_standby", "on")
                .setServerConfig("max_connections", "100")
                .setServerConfig("fsync", "off")
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("full_page_writes", "on")
                .setServerConfig("wal_writer_delay", "10ms")
                .start();
        int version;
        Path standbyDir = root.resolve("standby");
        try (Connection c = connect(primary.getPort(), "postgres");
                Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT current_setting('server_version_num')::int")) {
                rs.next();
                version = rs.getInt(1);
            }
            s.execute("SELECT pg_create_physical_replication_slot('flushless_standby', true)");
            boolean v15 = version >= 150000;
            s.execute(
                    v15
                            ? "SELECT pg_backup_start('flushless', true)"
                            : "SELECT pg_start_backup('flushless', true, false)");
            copyDataDirectory(primaryDir, standbyDir);
            String label;
            try (ResultSet rs = s.executeQuery(
                    v15 ? "SELECT labelfile FROM pg_backup_stop()" : "SELECT labelfile FROM pg_stop_backup(false)")) {
                rs.next();
                label = rs.getString(1);
            }
            Files.writeString(standbyDir.resolve("backup_label"), label);
        }
        String conninfo = "host=localhost port=" + primary.getPort() + " user=postgres application_name=standby";
        if (version >= 120000) {
            Files.writeString(standbyDir.resolve("standby.signal"), "");
            Files.writeString(
                    standbyDir.resolve("postgresql.auto.conf"),
                    "primary_conninfo = '" + conninfo + "'\nprimary_slot_name = 'flushless_standby'\n");
        } else {
            Files.writeString(
                    standbyDir.resolve("recovery.conf"),
                    "standby_mode = 'on'\nprimary_conninfo = '" + conninfo + "'\n"
                            + "primary_slot_name = 'flushless_standby'\n");
        }
        EmbeddedPostgres standby = EmbeddedPostgres.builder()
                .setDataDirectory(standbyDir)
                .setCleanDataDirectory(false)
                .setServerConfig("hot_standby", "on")
                .setServerConfig("max_connections", "100")
                .setServerConfig("fsync", "off")
                .setServerConfig("max_standby_streaming_delay", "5s")
                .setServerConfig("hot_standby_feedback", "on")
                .start();
        StandbyPair pair = new StandbyPair(primary, standby, root, version);
        pair.awaitStreaming();
        return pair;
    }

    /** Copies {@code from} to {@code to}, leaving out what a base backup leaves out (and files that vanish). */
    private static void copyDataDirectory(Path from, Path to) throws IOException {
        Set<String> skipped = Set.of("postmaster.pid", "postmaster.opts", "epg-lock", "backup_label");
        Set<String> emptied = Set.of(
                "pg_wal",
                "pg_replslot",
                "pg_stat_tmp",
                "pg_dynshmem",
                "pg_notify",
                "pg_serial",
                "pg_snapshots",
                "pg_subtrans");
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Path target = to.resolve(from.relativize(dir).toString());
                Files.createDirectories(target);
                if (!dir.equals(from)
                        && emptied.contains(dir.getFileName().toString())
                        && dir.getParent().equals(from)) {
                    if (dir.getFileName().toString().equals("pg_wal")) {
                        Files.createDirectories(target.resolve("archive_status"));
                    }
                    return FileVisitResult.SKIP_SUBTREE;
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (skipped.contains(file.getFileName().toString())) {
                    return FileVisitResult.CONTINUE;
                }
                try {
                    Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.REPLACE_EXISTING);
                } catch (NoSuchFileException vanished) {
                    // a file removed while the backup ran: the WAL replay recreates what is needed
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException exc) {
                return FileVisitResult.CONTINUE;
            }
        });
        try {
            Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rwx------"));
        } catch (UnsupportedOperationException notPosix) {
            // Windows
        }
    }

    /** Waits until the standby streams and replayed what the primary had written. */
    public void awaitStreaming() throws SQLException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            try (Connection p = connect(primary.getPort(), "postgres");
                    Statement s = p.createStatement();
                    ResultSet rs =
                            s.executeQuery("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")) {
                rs.next();
                if (rs.getInt(1) > 0) {
                    awaitReplay();
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new SQLException("the standby did not start streaming within 60 s");
            }
            sleep(50);
        }
    }

    /** Waits until the standby replayed the primary's current position (after a write the test made). */
    public void awaitReplay() throws SQLException {
        String target;
        try (Connection p = connect(primary.getPort(), "postgres");
                Statement s = p.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_current_wal_insert_lsn()::text")) {
            rs.next();
            target = rs.getString(1);
        }
        long deadline = System.nanoTime() + 60_000_000_000L;
        try (Connection r = connect(standby.getPort(), "postgres")) {
            while (true) {
                try (java.sql.PreparedStatement ps =
                        r.prepareStatement("SELECT coalesce(pg_last_wal_replay_lsn() >= ?::pg_lsn, false)")) {
                    ps.setString(1, target);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        if (rs.getBoolean(1)) {
                            return;
                        }
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new SQLException("the standby did not replay " + target + " within 60 s");
                }
                sleep(5);
            }
        }
    }

    /** Pauses WAL replay on the standby: reads that must see newer writes then wait, and go to the primary. */
    public void pauseReplay() throws SQLException {
        try (Connection r = connect(standby.getPort(), "postgres");
                Statement s = r.createStatement()) {
            s.execute("SELECT pg_wal_replay_pause()");
        }
    }

    /** Resumes WAL replay on the standby. */
    public void resumeReplay() throws SQLException {
        try (Connection r = connect(standby.getPort(), "postgres");
                Statement s = r.createStatement()) {
            s.execute("SELECT pg_wal_replay_resume()");
        }
    }

    public int primaryPort() {
        return primary.getPort();
    }

    public int standbyPort() {
        return standby.getPort();
    }

    /** {@code jdbc:postgresql://localhost:<primary>/<database>?user=postgres}. */
    public String primaryUrl(String database) {
        return "jdbc:postgresql://localhost:" + primary.getPort() + "/" + database + "?user=postgres";
    }

    /** {@code jdbc:postgresql://localhost:<standby>/<database>?user=postgres}. */
    public String standbyUrl(String database) {
        return "jdbc:postgresql://localhost:" + standby.getPort() + "/" + database + "?user=postgres";
    }

    /** Creates a database on the primary and waits until the standby has it. */
    public void createDatabase(String name) throws SQLException {
        try (Connection c = connect(primary.getPort(), "postgres");
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        awaitReplay();
    }

    static Connection connect(int port, String database) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", "postgres");
        return DriverManager.getConnection("jdbc:postgresql://localhost:" + port + "/" + database, p);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            standby.close();
        } finally {
            try {
                primary.close();
            } finally {
                deleteTree(root.toFile());
            }
        }
    }

    private static void deleteTree(File f) {
        File[] children = f.listFiles();
        if (children != null) {
            for (File child : children) {
                deleteTree(child);
            }
        }
        if (!f.delete() && f.exists()) {
            throw new UncheckedIOException(new IOException("could not delete " + f));
        }
    }
}
