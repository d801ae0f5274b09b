package dev.flushless.jdbc.session;

import dev.flushless.jdbc.Fallback;
import dev.flushless.jdbc.FallbackReason;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one connection knows about the tables its batches write: whether a table is a plain table without
 * triggers, rules or row-level security (a "barrier" otherwise), and its columns' types. Read from the
 * catalog once per table and cached for every connection of the driver that starts the same session ({@link #shared});
 * {@link #clear()} drops it after DDL through any of them, and a connection whose session changes how names resolve
 * (e.g. {@code search_path}) {@link #detach}es.
 *
 * <p>Why barriers: a trigger, rule or row-level security policy can skip or redirect rows and read or write
 * other tables, so a statement's effect is no longer the sum of its rows' effects (a BEFORE trigger that
 * returns NULL makes the row count 0; a rule can turn an INSERT into something else). Tables referenced by
 * foreign keys with cascading actions are noted too: changing them writes the referencing tables.
 */
public final class TableCatalog {

    /**
     * One column: its type OID, its type as PostgreSQL spells it without a modifier, its collation, and for
     * {@code varchar(n)}/{@code char(n)} its length limit n ({@code -1}: none or not known).
     */
    public record ColumnInfo(String name, int typeOid, String typeName, boolean deterministic, int maxLength) {
        public ColumnInfo(String name, int typeOid, String typeName, boolean deterministic) {
            this(name, typeOid, typeName, deterministic, -1);
        }
    }

    /**
     * One table. {@code kindProblem} says why it is not a plain table (view, foreign table, missing), and
     * {@code userCode} names the triggers, rules or row-level security it has; both {@code null} for a plain
     * table. {@code family} is the table and its inheritance children or partitions; {@code drawsFromSequences}
     * is true when an INSERT may draw from a sequence (an identity column, or a default that calls a function
     * other than a few clock and UUID built-ins): then {@code nextval}, {@code currval} and {@code lastval} depend
     * on whether a buffered INSERT into it ran before them.
     */
    public record TableInfo(
            long oid,
            String kindProblem,
            String userCode,
            boolean cascades,
            Map<String, ColumnInfo> columns,
            long[] family,
            boolean drawsFromSequences,
            List<UniqueKey> uniqueKeys,
            String uniquenessNotModelled,
            long[] reach,
            List<ForeignKey> references,
            List<ForeignKey> referencedBy,
            java.util.Set<String> notCopyable) {

        /**
         * A table whose columns' COPY facts are not known ({@link #copyable} is false for every column): tests and the
         * explain tool's offline catalog.
         */
        public TableInfo(
                long oid,
                String kindProblem,
                String userCode,
                boolean cascades,
                Map<String, ColumnInfo> columns,
                long[] family,
                boolean drawsFromSequences,
                List<UniqueKey> uniqueKeys,
                String uniquenessNotModelled,
                long[] reach,
                List<ForeignKey> references,
                List<ForeignKey> referencedBy) {
            this(
                    oid,
                    kindProblem,
                    userCode,
                    cascades,
                    columns,
                    family,
                    drawsFromSequences,
                    uniqueKeys,
                    uniquenessNotModelled,
                    reach,
                    references,
                    referencedBy,
                    null);
        }

        /**
         * True when {@code COPY ... FROM STDIN} into {@code column} stores what an INSERT of the same value stores (facts
         * read from the catalog, whose {@link #columns} are then in the table's column order): the
         * column is neither an identity column GENERATED ALWAYS nor a generated column, and every member of the table's
         * family is a plain or partitioned table (facts read from the catalog; unknown, false).
         */
        public boolean copyable(String column) {
            return notCopyable != null && columns.containsKey(column) && !notCopyable.contains(column);
        }

        /** A table without foreign keys either way (tests and the explain tool's offline catalog). */
        public TableInfo(
                long oid,
                String kindProblem,
                String userCode,
                boolean cascades,
                Map<String, ColumnInfo> columns,
                long[] family,
                boolean drawsFromSequences,
                List<UniqueKey> uniqueKeys,
                String uniquenessNotModelled) {
            this(
                    oid,
                    kindProblem,
                    userCode,
                    cascades,
                    columns,
                    family,
                    drawsFromSequences,
                    uniqueKeys,
                    uniquenessNotModelled,
                    family,
                    List.of(),
                    List.of());
        }

        /** A table known only by its columns (the explain tool's offline catalog). */
        public TableInfo(
                long oid, String kindProblem, String userCode, boolean cascades, Map<String, ColumnInfo> columns) {
            this(oid, kindProblem, userCode, cascades, columns, new long[] {oid}, true);
        }

        public TableInfo(
                long oid,
                String kindProblem,
                String userCode,
                boolean cascades,
                Map<String, ColumnInfo> columns,
                long[] family) {
            this(oid, kindProblem, userCode, cascades, columns, family, true);
        }

        /** A table without unique indexes (tests and the explain tool's offline catalog). */
        public TableInfo(
                long oid,
                String kindProblem,
                String userCode,
                boolean cascades,
                Map<String, ColumnInfo> columns,
                long[] family,
                boolean drawsFromSequences) {
            this(oid, kindProblem, userCode, cascades, columns, family, drawsFromSequences, List.of(), null);
        }

        /**
         * True when rows matched by {@code column = value} on every one of {@code columns} are at most one: the columns
         * cover an enforced unique key (valid, not partial, not deferrable, which could hold duplicates until commit) of
         * a table without inheritance children or partitions.
         */
        public boolean atMostOneRow(java.util.Collection<String> columns) {
            if (family.length != 1) {
                return false; // an UPDATE or DELETE of a parent also reaches its children, which its indexes do not
                // cover
            }
            for (UniqueKey key : uniqueKeys) {
                if (key.enforced() && columns.containsAll(key.columns())) {
                    return true;
                }
            }
            return false;
        }

        /** The unique keys that contain one of {@code columns} (e.g. the columns an UPDATE sets). */
        public List<UniqueKey> uniqueKeysTouching(java.util.Collection<String> columns) {
            List<UniqueKey> touched = new ArrayList<>();
            for (UniqueKey key : uniqueKeys) {
                if (key.columns().stream().anyMatch(columns::contains)) {
                    touched.add(key);
                }
            }
            return touched;
        }

        /**
         * True when reading one of the tables may see rows written into the other: PostgreSQL's reads of a
         * parent table include its inheritance children and partitions, and an INSERT into a partitioned
         * table lands in a partition, so two tables overlap when their families (the table and every
         * descendant) share a member.
         */
        public boolean overlaps(TableInfo other) {
            for (long a : family) {
                for (long b : other.family) {
                    if (a == b) {
                        return true;
                    }
                }
            }
            return false;
        }

        public ColumnInfo column(String name) {
            return columns.get(name);
        }

        /**
         * True when a write to {@code other} can change which rows the table {@code oid} holds: {@code oid} is one of
         * {@code other}'s family or an ancestor of one ({@link #reach}), since reads of a table include its children.
         */
        public boolean writesReach(long oid) {
            for (long r : reach) {
                if (r == oid) {
                    return true;
                }
            }
            return false;
        }

        /**
         * True when a foreign key of this table references the table itself (or a relative it writes into): its rows
         * may reference rows of the same batch, which PostgreSQL checks after each statement, so the order of the rows
         * decides whether bare pgjdbc's per-row statements fail.
         */
        public boolean selfReferencing() {
            for (ForeignKey fk : references) {
                if (writesReach(fk.otherTable())) {
                    return true;
                }
            }
            return false;
        }

        /** True when a foreign key of another table (or this one) references {@code column} of this table. */
        public boolean referencedColumn(String column) {
            for (ForeignKey fk : referencedBy) {
                if (fk.columns().contains(column)) {
                    return true;
                }
            }
            return false;
        }

        /**
         * Why an INSERT into the table must run as sent, or {@code null}: a {@link #barrier}, or, with
         * {@code flushless.exactSequences=true}, ids drawn from a sequence (a failed coalesced attempt would have
         * drawn them before it is undone, and PostgreSQL cannot give them back).
         */
        public Fallback insertBarrier(boolean trustTriggers, boolean exactSequences) {
            Fallback barrier = barrier(trustTriggers);
            if (barrier == null && exactSequences && drawsFromSequences) {
                return FallbackReason.EXACT_SEQUENCES.get();
            }
            return barrier;
        }

        /** Why the table is a barrier, or {@code null}; {@code trustTriggers} ignores triggers, rules and RLS. */
        public Fallback barrier(boolean trustTriggers) {
            return kindProblem != null
                    ? FallbackReason.TABLE_NOT_PLAIN.because(kindProblem)
                    : trustTriggers || userCode == null ? null : FallbackReason.TRIGGERS.because(userCode);
        }
    }

    /**
     * A unique index or unique constraint on plain columns (its key columns, folded names), whether it treats
     * NULLs as equal ({@code NULLS NOT DISTINCT}, PostgreSQL 15+), and whether it guarantees that no two rows share
     * a key at any time ({@code enforced}: valid, not partial, checked immediately). A partial index is still listed:
     * for the order of unique checks, treating it as covering every row only makes the driver more careful.
     */
    public record UniqueKey(List<String> columns, boolean nullsNotDistinct, boolean enforced) {}

    /**
     * One foreign key seen from this table: {@code columns} are this table's side (the referencing columns of a key
     * in {@link TableInfo#references}, the referenced ones of a key in {@link TableInfo#referencedBy}),
     * {@code otherColumns} the other side's in the same order, {@code otherTable} the other side's oid.
     */
    public record ForeignKey(long otherTable, List<String> columns, List<String> otherColumns) {}

    /**
     * Facts read through the connections of one server, database, user and connection settings (their key, see
     * {@link #shared}): a table named alike resolves alike there, so one connection's read serves every other.
     * {@code generation} counts the times the facts were dropped, so that a read that began before a drop does not
     * put facts from before the DDL back.
     */
    private static final class Facts {
        final Map<String, Read> tables = new ConcurrentHashMap<>();
        final Map<Long, ConflictFacts> conflictFacts = new ConcurrentHashMap<>();
        final java.util.concurrent.atomic.AtomicLong generation = new java.util.concurrent.atomic.AtomicLong();

        void clear() {
            generation.incrementAndGet();
            tables.clear();
            conflictFacts.clear();
        }
    }

    /** A table's facts, when they were read ({@link System#nanoTime}) and in which {@link #EPOCH}. */
    private record Read(TableInfo info, long nanos, long epoch) {}

    /** Advanced by {@link #forgetEverywhere}: facts read in an earlier epoch are read again, in every catalog. */
    private static final java.util.concurrent.atomic.AtomicLong EPOCH = new java.util.concurrent.atomic.AtomicLong();

    /**
     * Every catalog of the driver (shared or a connection's own) reads its facts again before their next use: the
     * application changed the schema through another program ({@code FlushlessDriver.schemaChanged()}).
     */
    public static void forgetEverywhere() {
        EPOCH.incrementAndGet();
    }

    /** The facts shared driver-wide, by connection key; at most {@link #MAX_SHARED_KEYS} keys are kept. */
    private static final Map<String, Facts> SHARED = new ConcurrentHashMap<>();

    private static final int MAX_SHARED_KEYS = 64;

    /** The facts this connection reads and writes: the shared ones, or its own (see {@link #detach}, {@link #isolate}). */
    private volatile Facts facts;
    /** The facts shared with other connections, or {@code null} for a catalog of its own. */
    private final Facts shared;
    /** Set by {@link #detach}: the connection never shares again. */
    private volatile boolean detached;

    /** How long facts are used before they are read again ({@code Long.MAX_VALUE}: for the connection's lifetime). */
    private final long maxAgeNanos;

    /** A catalog of its own, shared with no other connection (tests, explain, a connection that is not pgjdbc). */
    public TableCatalog() {
        this.facts = new Facts();
        this.shared = null;
        this.maxAgeNanos = Long.MAX_VALUE;
    }

    private TableCatalog(Facts facts, long maxAgeNanos) {
        this.facts = facts;
        this.shared = facts;
        this.maxAgeNanos = maxAgeNanos;
    }

    /**
     * The catalog of a connection whose server, database, user and connection settings are {@code key}: connections
     * with the same key share what any of them read, so a connection's first batch into a table whose facts another
     * connection of the driver already read sends no catalog query. A key identifies the session a connection starts
     * with (the pgjdbc URL it was opened with, which holds host, port, database, {@code currentSchema} and
     * {@code options}, and the user); a connection whose session moves away from it (a {@code search_path} or role
     * change, a temporary table that can hide a table of the same name) {@link #detach}es.
     */
    public static TableCatalog shared(String key, int maxAgeSeconds) {
        if (maxAgeSeconds <= 0) {
            return new TableCatalog();
        }
        if (SHARED.size() >= MAX_SHARED_KEYS && !SHARED.containsKey(key)) {
            SHARED.clear(); // many distinct URLs or users: start over rather than grow without bound
        }
        return new TableCatalog(
                SHARED.computeIfAbsent(key, k -> new Facts()),
                java.util.concurrent.TimeUnit.SECONDS.toNanos(maxAgeSeconds));
    }

    /**
     * The facts about {@code table} (as written in the SQL), read through {@code connection} when not cached.
     *
     * @throws SQLException when the catalog cannot be read (e.g. in an aborted transaction)
     */
    public TableInfo lookup(Connection connection, String table) throws SQLException {
        Facts current = facts;
        Read cached = current.tables.get(table);
        long epoch = EPOCH.get();
        if (cached != null
                && cached.epoch() == epoch
                && (maxAgeNanos == Long.MAX_VALUE || System.nanoTime() - cached.nanos() < maxAgeNanos)) {
            return cached.info();
        }
        long generation = current.generation.get();
        long now = System.nanoTime();
        TableInfo info = read(connection, table);
        remember(current, generation, table, new Read(info, now, epoch));
        return info;
    }

    /** Caches {@code read} unless the facts were cleared since {@code generation}; drops the earlier conflict facts. */
    private static void remember(Facts current, long generation, String table, Read read) {
        if (current.generation.get() == generation) {
            Read earlier = current.tables.put(table, read);
            if (earlier != null) {
                current.conflictFacts.remove(earlier.info().oid());
            }
        }
    }

    /**
     * Tables (as written in the SQL) whose first batch in the current transaction ran as sent while their facts were not
     * read ({@code flushless.coalesceFirstBatch=false}): their facts are read with the COMMIT ({@link #readPendingThenCommit}).
     */
    private final java.util.Set<String> pending = new java.util.LinkedHashSet<>();

    /**
     * Notes that {@code table}'s facts are to be read with the transaction's COMMIT; false when they already were noted
     * (a second batch of the table in the same transaction reads them at once).
     */
    public boolean readAtCommit(String table) {
        return !unreadAtCommit.contains(table) && pending.add(table);
    }

    /** Tables whose facts a COMMIT could not read: their batches read them first, not at every COMMIT again. */
    private final java.util.Set<String> unreadAtCommit = ConcurrentHashMap.newKeySet();

    public boolean hasPending() {
        return !pending.isEmpty();
    }

    /** Forgets the facts to be read with the COMMIT (a rollback, or a COMMIT that cannot carry them). */
    public void dropPending() {
        pending.clear();
    }

    /**
     * Sends the open transaction's COMMIT with the catalog queries of the pending tables not read since in front of it,
     * one round trip, and caches what they read ({@link CatalogQuery#runThenCommit}). Returns false when the COMMIT is
     * still to be sent (nothing left to read; or a lookup failed and was undone, its error dropped and the facts read
     * at the table's next batch); an error of the COMMIT itself is thrown as pgjdbc's {@code commit()} throws it.
     */
    public boolean readPendingThenCommit(Connection connection) throws SQLException {
        List<String> tables = new ArrayList<>(pending);
        pending.clear();
        tables.removeIf(this::isCached); // read since: by the transaction's next batch, or a connection sharing facts
        if (tables.isEmpty()) {
            return false;
        }
        Facts current = facts;
        long generation = current.generation.get();
        long epoch = EPOCH.get();
        long now = System.nanoTime();
        List<LookupRows> rows = new ArrayList<>();
        List<CatalogQuery.Part> parts = new ArrayList<>();
        for (String table : tables) {
            LookupRows read = new LookupRows();
            rows.add(read);
            parts.add(new CatalogQuery.Part(CatalogSql.LOOKUP, table, read::read));
        }
        CatalogQuery.AtCommit outcome = CatalogQuery.runThenCommit(connection, parts);
        if (outcome != CatalogQuery.AtCommit.READ) {
            unreadAtCommit.addAll(tables);
        }
        if (outcome == CatalogQuery.AtCommit.NOT_COMMITTED) {
            return false;
        }
        if (outcome == CatalogQuery.AtCommit.READ) {
            for (int i = 0; i < tables.size(); i++) {
                remember(
                        current, generation, tables.get(i), new Read(rows.get(i).info(), now, epoch));
            }
        }
        return true;
    }

    /** Tables (as written in the SQL) this connection has written once without reading their facts. */
    private final java.util.Set<String> writtenOnce = ConcurrentHashMap.newKeySet();

    /**
     * True, and remembered, when {@code table}'s facts are not cached and this is the first time the connection asks:
     * the caller then runs the write as sent instead of reading the catalog ({@code flushless.bufferFirstWrite}).
     * False from the second time on, and for a table already read (by any connection sharing the facts).
     */
    public boolean firstWriteUnread(String table) {
        return !isCached(table) && writtenOnce.add(table);
    }

    /** Whether {@code table}'s facts are cached (read by this connection or one sharing its facts). */
    public boolean isCached(String table) {
        Read cached = facts.tables.get(table);
        return cached != null && cached.epoch() == EPOCH.get();
    }

    /**
     * The facts the anti-join form of ON CONFLICT needs about {@code table} (found by {@link #lookup}), read
     * through {@code connection} when not cached.
     *
     * @throws SQLException when the catalog cannot be read
     */
    public ConflictFacts conflictFacts(Connection connection, TableInfo table) throws SQLException {
        Facts current = facts;
        ConflictFacts found = current.conflictFacts.get(table.oid());
        if (found == null) {
            long generation = current.generation.get();
            found = readConflictFacts(connection, table.oid());
            if (current.generation.get() == generation) {
                current.conflictFacts.put(table.oid(), found);
            }
        }
        return found;
    }

    /** Both conflict-fact queries, in one round trip (see {@link CatalogQuery} for the locks they do not hold). */
    private static ConflictFacts readConflictFacts(Connection connection, long oid) throws SQLException {
        String[] relkind = {null};
        boolean[] parentAndChecks = new boolean[2];
        Map<String, ConflictFacts.ColumnFacts> columns = new LinkedHashMap<>();
        List<ConflictFacts.UniqueIndex> indexes = new ArrayList<>();
        CatalogQuery.run(
                connection,
                List.of(
                        new CatalogQuery.Part(CatalogSql.CONFLICT_COLUMNS, oid, rs -> {
                            while (rs.next()) {
                                relkind[0] = rs.getString(1);
                                parentAndChecks[0] = rs.getBoolean(2);
                                parentAndChecks[1] = rs.getBoolean(3);
                                String name = rs.getString(4);
                                columns.put(
                                        name,
                                        new ConflictFacts.ColumnFacts(
                                                name,
                                                rs.getInt(5),
                                                rs.getString(6),
                                                rs.getBoolean(7),
                                                rs.getBoolean(8),
                                                rs.getBoolean(9),
                                                rs.getBoolean(10),
                                                rs.getBoolean(11)));
                            }
                        }),
                        new CatalogQuery.Part(CatalogSql.CONFLICT_INDEXES, oid, rs -> {
                            while (rs.next()) {
                                List<String> names = new ArrayList<>();
                                java.sql.Array array = rs.getArray(7);
                                if (array != null) {
                                    for (Object name : (Object[]) array.getArray()) {
                                        names.add((String) name);
                                    }
                                }
                                indexes.add(new ConflictFacts.UniqueIndex(
                                        rs.getString(1),
                                        java.util.Collections.unmodifiableList(names),
                                        rs.getBoolean(2),
                                        rs.getBoolean(3),
                                        rs.getBoolean(4),
                                        rs.getBoolean(5),
                                        rs.getBoolean(6),
                                        rs.getBoolean(8),
                                        rs.getBoolean(9)));
                            }
                        })));
        return new ConflictFacts(
                relkind[0] == null ? "?" : relkind[0],
                parentAndChecks[0],
                parentAndChecks[1],
                Map.copyOf(columns),
                List.copyOf(indexes));
    }

    /**
     * Forgets everything (after DDL, or an error that may come from a changed table): for every connection sharing
     * these facts, since a table's definition is the same for all of them.
     */
    public void clear() {
        facts.clear();
    }

    /**
     * From now on this connection keeps facts of its own, empty at first: its session resolves table names otherwise
     * than the connections it shared with (another {@code search_path} or role, a temporary table).
     */
    public void detach() {
        detached = true;
        facts = new Facts();
    }

    /**
     * Until {@link #rejoin}, this connection keeps what it reads to itself: it changed the schema in a transaction that
     * has not ended, and what it reads now (its own uncommitted DDL, which may still roll back) is not what the other
     * connections see.
     */
    public void isolate() {
        if (shared != null && facts == shared) {
            facts = new Facts();
        }
    }

    /**
     * The schema change of this connection ended (committed or rolled back): the shared facts are dropped, since they
     * may have been read before the change became visible, and the connection shares again (unless detached).
     */
    public void rejoin() {
        if (shared != null) {
            shared.clear();
            if (!detached) {
                facts = shared;
            }
        }
        facts.clear();
    }

    /** Reads one table's facts (see {@link CatalogQuery} for the locks the lookup does not take or hold). */
    private static TableInfo read(Connection connection, String table) throws SQLException {
        LookupRows rows = new LookupRows();
        CatalogQuery.run(connection, List.of(new CatalogQuery.Part(CatalogSql.LOOKUP, table, rows::read)));
        return rows.info();
    }
}
