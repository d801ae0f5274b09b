package dev.flushless.jdbc.conformance;

import static dev.flushless.jdbc.conformance.Behaviour.of;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

/** Conformance behaviours: DDL, queries and result sets of every common type, metadata. */
final class DdlAndQueries {

    private DdlAndQueries() {}

    static List<Behaviour> behaviours() {
        return List.of(
                of("ddl: create, alter, drop table and index", (env, t) -> {
                    Statement s = env.connection().createStatement();
                    t.add("create", s.executeUpdate("CREATE TABLE item (id int PRIMARY KEY, name text)"));
                    t.add("alter", s.executeUpdate("ALTER TABLE item ADD COLUMN price numeric(10,2) DEFAULT 0"));
                    t.add("index", s.execute("CREATE INDEX item_name ON item (name)"));
                    t.add("updateCount", s.getUpdateCount());
                    t.add("drop", s.executeUpdate("DROP TABLE item"));
                    s.executeUpdate("CREATE TABLE kept (id int)");
                }),
                of("query: every common type through getObject and getString", (env, t) -> {
                    Statement s = env.connection().createStatement();
                    ResultSet rs = s.executeQuery("SELECT 1::int2 AS s, 2::int4 AS i, 3::int8 AS b, 1.5::float4 AS f,"
                            + " 2.25::float8 AS d, 12.345::numeric(10,3) AS n, true AS bool, 'x'::char(3) AS c,"
                            + " 'text' AS txt, 'v'::varchar(5) AS vc, DATE '2024-02-29' AS dt, TIME '12:34:56' AS tm,"
                            + " TIMESTAMP '2024-02-29 12:34:56.789' AS ts, '\\x0102ff'::bytea AS bin,"
                            + " '6a1d5c3e-2f6b-4c1e-9a0d-3b9f1e2a4c5d'::uuid AS u, '{\"a\": 1}'::jsonb AS j,"
                            + " ARRAY[1,2,3] AS arr, ARRAY['a','b'] AS tarr, interval '1 day 2 hours' AS iv,"
                            + " NULL::int AS nul");
                    t.rows("types", rs);
                    ResultSet strings =
                            s.executeQuery("SELECT 1.5::float4, DATE '2024-02-29', '\\x01'::bytea, ARRAY[1,2]");
                    strings.next();
                    for (int i = 1; i <= 4; i++) {
                        t.add("getString " + i, strings.getString(i));
                    }
                }),
                of("query: typed getters and wasNull", (env, t) -> {
                    ResultSet rs = env.connection()
                            .createStatement()
                            .executeQuery(
                                    "SELECT 42 AS i, NULL::int AS n, 7.5::numeric AS d, TIMESTAMPTZ '2024-01-02 03:04:05+02' AS tz");
                    rs.next();
                    t.add("getInt", rs.getInt("i"));
                    t.add("getLong", rs.getLong(1));
                    t.add("getInt null", rs.getInt("n"));
                    t.add("wasNull", rs.wasNull());
                    t.add("getBigDecimal", rs.getBigDecimal("d"));
                    t.add("getDouble", rs.getDouble("d"));
                    t.add(
                            "getTimestamp",
                            rs.getTimestamp(
                                    "tz", java.util.Calendar.getInstance(java.util.TimeZone.getTimeZone("UTC"))));
                    t.add("getObject OffsetDateTime", rs.getObject("tz", java.time.OffsetDateTime.class));
                }),
                of("prepared query: parameters and re-execution past the prepare threshold", (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement().execute("CREATE TABLE p (id int PRIMARY KEY, v text)");
                    c.createStatement().execute("INSERT INTO p SELECT g, 'v' || g FROM generate_series(1, 20) g");
                    PreparedStatement ps = c.prepareStatement("SELECT v FROM p WHERE id = ?");
                    for (int i = 1; i <= 8; i++) {
                        ps.setInt(1, i);
                        try (ResultSet rs = ps.executeQuery()) {
                            t.add("next " + i, rs.next());
                            t.add("value " + i, rs.getString(1));
                        }
                    }
                }),
                of("query: result set navigation and identity", (env, t) -> {
                    Statement s = env.connection()
                            .createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_READ_ONLY);
                    ResultSet rs = s.executeQuery("SELECT g FROM generate_series(1, 5) g");
                    t.add("statement identity", rs.getStatement() == s);
                    t.add("connection identity", s.getConnection() == env.connection());
                    t.add("last", rs.last());
                    t.add("row", rs.getRow());
                    t.add("absolute", rs.absolute(2));
                    t.add("value", rs.getInt(1));
                    t.add("previous", rs.previous());
                    t.add("isFirst", rs.isFirst());
                    t.add("type", rs.getType());
                    t.add("concurrency", rs.getConcurrency());
                }),
                of("ddl: serial, identity, defaults, views, sequences and functions", (env, t) -> {
                    Statement s = env.connection().createStatement();
                    s.execute("CREATE TABLE d (id serial PRIMARY KEY, ident bigint GENERATED ALWAYS AS IDENTITY,"
                            + " v text DEFAULT 'dflt', n int NOT NULL DEFAULT 5)");
                    s.execute("CREATE SEQUENCE seq START 100 INCREMENT 10");
                    s.execute("CREATE VIEW dv AS SELECT id, v FROM d WHERE n > 1");
                    s.execute("CREATE FUNCTION twice(x int) RETURNS int LANGUAGE sql AS 'SELECT x * 2'");
                    t.add("insert defaults", s.executeUpdate("INSERT INTO d DEFAULT VALUES"));
                    t.add("insert some", s.executeUpdate("INSERT INTO d (v, n) VALUES ('a', 1), ('b', 2)"));
                    t.rows("view", s.executeQuery("SELECT * FROM dv ORDER BY id"));
                    t.rows("nextval", s.executeQuery("SELECT nextval('seq'), nextval('seq'), twice(21)"));
                    t.add("comment", s.executeUpdate("COMMENT ON TABLE d IS 'defaults'"));
                    t.add("create gone", s.execute("CREATE TABLE gone (x int)"));
                    t.add("drop", s.executeUpdate("DROP TABLE gone"));
                }),
                of("query: execute, getResultSet, getUpdateCount for queries, updates and DDL", (env, t) -> {
                    Statement s = env.connection().createStatement();
                    t.add("execute ddl", s.execute("CREATE TABLE e (id int)"));
                    t.add("ddl updateCount", s.getUpdateCount());
                    t.add("ddl resultSet null", s.getResultSet() == null);
                    t.add("execute insert", s.execute("INSERT INTO e VALUES (1), (2), (3)"));
                    t.add("insert updateCount", s.getUpdateCount());
                    t.add("insert largeUpdateCount", s.getLargeUpdateCount());
                    t.add("execute select", s.execute("SELECT id FROM e ORDER BY id"));
                    t.add("select updateCount", s.getUpdateCount());
                    t.rows("select", s.getResultSet());
                    t.add("moreResults", s.getMoreResults());
                    t.add("after updateCount", s.getUpdateCount());
                    t.add("executeLargeUpdate", s.executeLargeUpdate("UPDATE e SET id = id + 10"));
                    t.add("executeUpdate nothing", s.executeUpdate("DELETE FROM e WHERE id < 0"));
                    t.call("executeUpdate of select", () -> s.executeUpdate("SELECT 1"));
                    t.call("executeQuery of update", () -> s.executeQuery("UPDATE e SET id = id"));
                }),
                of("query: multiple result sets from a semicolon-separated execute", (env, t) -> {
                    Statement s = env.connection().createStatement();
                    s.execute("CREATE TABLE m (id int)");
                    boolean isResult =
                            s.execute("SELECT 1 AS a; INSERT INTO m VALUES (1), (2); SELECT 'x' AS b, 2 AS c;"
                                    + " UPDATE m SET id = 3 WHERE id = 1; DELETE FROM m WHERE id = 99");
                    for (int i = 1; i <= 8; i++) {
                        t.add("result " + i + " isResultSet", isResult);
                        if (isResult) {
                            t.rows("result " + i, s.getResultSet());
                        } else {
                            int count = s.getUpdateCount();
                            t.add("result " + i + " updateCount", count);
                            if (count == -1) {
                                break;
                            }
                        }
                        isResult = s.getMoreResults();
                    }
                }),
                of("query: getMoreResults keeping the current result set", (env, t) -> {
                    Statement s = env.connection().createStatement();
                    t.add("execute", s.execute("SELECT 1 AS a; SELECT 2 AS b"));
                    ResultSet first = s.getResultSet();
                    t.call("more KEEP_CURRENT_RESULT", () -> s.getMoreResults(Statement.KEEP_CURRENT_RESULT));
                    t.call("first still open", () -> !first.isClosed());
                    t.rows("second", s.getResultSet());
                    t.add("more CLOSE_ALL_RESULTS", s.getMoreResults(Statement.CLOSE_ALL_RESULTS));
                    t.add("first closed", first.isClosed());
                }),
                of("query: large result read in chunks with a fetch size", (env, t) -> {
                    Connection c = env.connection();
                    Statement setup = c.createStatement();
                    setup.execute("CREATE TABLE big (id int PRIMARY KEY, v text)");
                    t.add(
                            "filled",
                            setup.executeUpdate(
                                    "INSERT INTO big SELECT g, 'row ' || g FROM generate_series(1, 10000) g"));
                    c.setAutoCommit(false);
                    Statement s = c.createStatement();
                    s.setFetchSize(250);
                    t.add("statement fetchSize", s.getFetchSize());
                    long count = 0;
                    long sum = 0;
                    int lengths = 0;
                    try (ResultSet rs = s.executeQuery("SELECT id, v FROM big ORDER BY id")) {
                        t.add("resultSet fetchSize", rs.getFetchSize());
                        while (rs.next()) {
                            count++;
                            sum += rs.getInt(1);
                            lengths += rs.getString(2).length();
                            if (count == 1 || count == 5000 || count == 10000) {
                                t.add("row " + count, rs.getString(2));
                            }
                        }
                    }
                    t.add("count", count);
                    t.add("sum", sum);
                    t.add("lengths", lengths);
                    PreparedStatement ps = c.prepareStatement("SELECT id FROM big WHERE id > ? ORDER BY id");
                    ps.setFetchSize(1000);
                    ps.setInt(1, 2500);
                    long preparedCount = 0;
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            preparedCount++;
                        }
                    }
                    t.add("prepared count", preparedCount);
                    c.commit();
                }),
                of("query: maxRows and largeMaxRows limit the rows returned", (env, t) -> {
                    Statement s = env.connection().createStatement();
                    t.add("default maxRows", s.getMaxRows());
                    s.setMaxRows(3);
                    t.add("maxRows", s.getMaxRows());
                    t.rows("limited", s.executeQuery("SELECT g FROM generate_series(1, 10) g"));
                    t.call("setLargeMaxRows", () -> {
                        s.setLargeMaxRows(2);
                        return "accepted";
                    });
                    t.call("getLargeMaxRows", s::getLargeMaxRows);
                    PreparedStatement ps = env.connection().prepareStatement("SELECT g FROM generate_series(1, ?) g");
                    ps.setMaxRows(4);
                    ps.setInt(1, 100);
                    t.rows("prepared limited", ps.executeQuery());
                    t.call("negative maxRows", () -> {
                        s.setMaxRows(-1);
                        return "accepted";
                    });
                }),
                of("query: setQueryTimeout with a fast query and statement_timeout cancelling a slow one", (env, t) -> {
                    Statement s = env.connection().createStatement();
                    t.add("default timeout", s.getQueryTimeout());
                    s.setQueryTimeout(5);
                    t.add("timeout", s.getQueryTimeout());
                    t.rows("fast", s.executeQuery("SELECT 1 AS one"));
                    t.call("negative timeout", () -> {
                        s.setQueryTimeout(-1);
                        return "accepted";
                    });
                    s.execute("SET statement_timeout = 50");
                    t.call("slow", () -> s.executeQuery("SELECT pg_sleep(2)"));
                    s.execute("RESET statement_timeout");
                    t.rows("after", s.executeQuery("SELECT 2 AS two"));
                }),
                of("query: getObject with target classes", (env, t) -> {
                    ResultSet rs = env.connection()
                            .createStatement()
                            .executeQuery("SELECT DATE '2024-02-29' AS d,"
                                    + " TIMESTAMP '2024-02-29 12:34:56.123456' AS ts, TIME '23:59:58' AS tm,"
                                    + " TIMESTAMPTZ '2024-02-29 12:34:56+05:30' AS tz, TIMETZ '10:11:12+02' AS ttz,"
                                    + " '6a1d5c3e-2f6b-4c1e-9a0d-3b9f1e2a4c5d'::uuid AS u, 123.4500::numeric AS n, 7::int8 AS l,"
                                    + " 'infinity'::date AS inf");
                    rs.next();
                    t.add("LocalDate", rs.getObject("d", java.time.LocalDate.class));
                    t.add("LocalDateTime", rs.getObject("ts", java.time.LocalDateTime.class));
                    t.add("LocalTime", rs.getObject("tm", java.time.LocalTime.class));
                    t.add("OffsetDateTime", rs.getObject("tz", java.time.OffsetDateTime.class));
                    t.call("OffsetTime", () -> rs.getObject("ttz", java.time.OffsetTime.class));
                    t.call("Instant", () -> rs.getObject("tz", java.time.Instant.class));
                    t.add("UUID", rs.getObject("u", java.util.UUID.class));
                    t.add("BigDecimal", rs.getObject("n", java.math.BigDecimal.class));
                    t.add("Long", rs.getObject("l", Long.class));
                    t.call("Integer from int8", () -> rs.getObject("l", Integer.class));
                    t.call("String from numeric", () -> rs.getObject("n", String.class));
                    t.add("infinity LocalDate", rs.getObject("inf", java.time.LocalDate.class));
                    t.call("bad conversion", () -> rs.getObject("u", Integer.class));
                    t.call("getInt of uuid", () -> rs.getInt("u"));
                    t.call("unknown column", () -> rs.getString("nope"));
                    t.call("column index 0", () -> rs.getString(0));
                }),
                of("query: arrays, bytes and streams read back", (env, t) -> {
                    ResultSet rs = env.connection()
                            .createStatement()
                            .executeQuery("SELECT ARRAY[[1,2],[3,4]] AS a2,"
                                    + " ARRAY['x', NULL, 'z'] AS at, '\\xdeadbeef'::bytea AS b, 'long text' AS txt,"
                                    + " ARRAY[1.5, 2.25]::numeric[] AS an");
                    rs.next();
                    java.sql.Array a2 = rs.getArray("a2");
                    t.add("a2 base", a2.getBaseTypeName() + "/" + a2.getBaseType());
                    t.add("a2", a2.getArray());
                    t.add("a2 slice", a2.getArray(2, 1));
                    t.rows("a2 resultSet", a2.getResultSet());
                    t.add("at", rs.getArray("at").getArray());
                    t.add("an", rs.getArray("an").getArray());
                    t.add("bytes", rs.getBytes("b"));
                    t.add("binaryStream", rs.getBinaryStream("b").readAllBytes());
                    java.io.Reader reader = rs.getCharacterStream("txt");
                    StringBuilder text = new StringBuilder();
                    for (int ch = reader.read(); ch >= 0; ch = reader.read()) {
                        text.append((char) ch);
                    }
                    t.add("characterStream", text);
                    t.add(
                            "asciiStream",
                            new String(
                                    rs.getAsciiStream("txt").readAllBytes(),
                                    java.nio.charset.StandardCharsets.US_ASCII));
                }),
                of("query: updatable result set updates, inserts and deletes rows", (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement().execute("CREATE TABLE u (id int PRIMARY KEY, v text)");
                    c.createStatement().execute("INSERT INTO u VALUES (1, 'a'), (2, 'b'), (3, 'c')");
                    Statement s = c.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE);
                    ResultSet rs = s.executeQuery("SELECT id, v FROM u ORDER BY id");
                    t.add("concurrency", rs.getConcurrency());
                    rs.next();
                    rs.updateString("v", "A");
                    rs.updateRow();
                    t.add("updated value", rs.getString("v"));
                    rs.next();
                    rs.deleteRow();
                    rs.moveToInsertRow();
                    rs.updateInt("id", 4);
                    rs.updateString("v", "d");
                    rs.insertRow();
                    rs.moveToCurrentRow();
                    rs.close();
                    t.rows("after", c.createStatement().executeQuery("SELECT * FROM u ORDER BY id"));
                    ResultSet ro = c.createStatement().executeQuery("SELECT id, v FROM u");
                    ro.next();
                    t.call("update read-only", () -> {
                        ro.updateString("v", "x");
                        return "updated";
                    });
                }),
                of("query: RETURNING through executeQuery and execute", (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement().execute("CREATE TABLE r (id serial PRIMARY KEY, v text)");
                    t.rows(
                            "insert returning",
                            c.createStatement().executeQuery("INSERT INTO r (v) VALUES ('a'), ('b') RETURNING id, v"));
                    PreparedStatement ps = c.prepareStatement("UPDATE r SET v = v || ? WHERE id = ? RETURNING *");
                    ps.setString(1, "!");
                    ps.setInt(2, 2);
                    t.rows("update returning", ps.executeQuery());
                    Statement s = c.createStatement();
                    t.add("execute delete returning", s.execute("DELETE FROM r WHERE id = 1 RETURNING v"));
                    t.rows("deleted", s.getResultSet());
                    t.add("updateCount after", s.getUpdateCount());
                    t.call(
                            "executeUpdate with returning",
                            () -> c.createStatement().executeUpdate("INSERT INTO r (v) VALUES ('c') RETURNING id"));
                }),
                of("query: CallableStatement with functions, OUT parameters and procedures", (env, t) -> {
                    Connection c = env.connection();
                    Statement s = c.createStatement();
                    s.execute("CREATE FUNCTION twice(x int) RETURNS int LANGUAGE sql AS 'SELECT x * 2'");
                    s.execute(
                            "CREATE FUNCTION split(x int, OUT half int, OUT rest int) LANGUAGE sql AS 'SELECT x / 2, x % 2'");
                    s.execute("CREATE TABLE called (v int)");
                    s.execute("CREATE PROCEDURE add_row(x int) LANGUAGE sql AS 'INSERT INTO called VALUES (x)'");
                    t.add("nativeSQL", c.nativeSQL("{? = call twice(?)}"));
                    java.sql.CallableStatement cs = c.prepareCall("{? = call twice(?)}");
                    cs.registerOutParameter(1, java.sql.Types.INTEGER);
                    cs.setInt(2, 21);
                    t.add("execute", cs.execute());
                    t.add("result", cs.getInt(1));
                    t.add("wasNull", cs.wasNull());
                    t.add("connection identity", cs.getConnection() == c);
                    java.sql.CallableStatement out = c.prepareCall("{call split(?, ?, ?)}");
                    out.setInt(1, 7);
                    out.registerOutParameter(2, java.sql.Types.INTEGER);
                    out.registerOutParameter(3, java.sql.Types.INTEGER);
                    out.execute();
                    t.add("half", out.getInt(2));
                    t.add("rest", out.getObject(3));
                    java.sql.CallableStatement proc = c.prepareCall("CALL add_row(?)");
                    proc.setInt(1, 5);
                    t.add("call procedure", proc.execute());
                    java.sql.CallableStatement select = c.prepareCall("SELECT twice(?) AS v");
                    select.setInt(1, 4);
                    t.rows("callable query", select.executeQuery());
                    t.call("missing out registration", () -> {
                        java.sql.CallableStatement bad = c.prepareCall("{? = call twice(?)}");
                        bad.setInt(2, 1);
                        bad.execute();
                        return bad.getInt(1);
                    });
                }),
                of("metadata: DatabaseMetaData identity and product information", (env, t) -> {
                    Connection c = env.connection();
                    java.sql.DatabaseMetaData md = c.getMetaData();
                    t.add("getConnection identity", md.getConnection() == c);
                    t.add("product", md.getDatabaseProductName());
                    t.add("major", md.getDatabaseMajorVersion());
                    t.add("driver name", md.getDriverName());
                    t.add("jdbc major", md.getJDBCMajorVersion());
                    t.add("supportsBatchUpdates", md.supportsBatchUpdates());
                    t.add("supportsGetGeneratedKeys", md.supportsGetGeneratedKeys());
                    t.add("supportsSavepoints", md.supportsSavepoints());
                    t.add(
                            "supportsTransactionIsolation serializable",
                            md.supportsTransactionIsolationLevel(Connection.TRANSACTION_SERIALIZABLE));
                    t.add("default isolation", md.getDefaultTransactionIsolation());
                    t.add("identifierQuote", md.getIdentifierQuoteString());
                    t.add("storesLowerCase", md.storesLowerCaseIdentifiers());
                    t.add("schema", c.getSchema());
                    t.add("current schema via sql", queryString(c, "SELECT current_schema()"));
                }),
                of("metadata: getTables, getColumns, getPrimaryKeys, getIndexInfo of created tables", (env, t) -> {
                    Connection c = env.connection();
                    Statement s = c.createStatement();
                    s.execute("CREATE TABLE parent (id bigserial PRIMARY KEY, code varchar(12) NOT NULL UNIQUE,"
                            + " amount numeric(12,3), at timestamptz, flag boolean DEFAULT false)");
                    s.execute(
                            "CREATE TABLE child (a int, b int, parent_id bigint REFERENCES parent(id), PRIMARY KEY (b, a))");
                    s.execute("CREATE VIEW pv AS SELECT id FROM parent");
                    String schema = c.getSchema();
                    java.sql.DatabaseMetaData md = c.getMetaData();
                    ResultSet tables = md.getTables(null, schema, "%", new String[] {"TABLE", "VIEW"});
                    while (tables.next()) {
                        t.add(
                                "table",
                                tables.getString("TABLE_SCHEM") + "." + tables.getString("TABLE_NAME") + " "
                                        + tables.getString("TABLE_TYPE"));
                    }
                    ResultSet columns = md.getColumns(null, schema, "parent", "%");
                    while (columns.next()) {
                        t.add(
                                "column",
                                columns.getInt("ORDINAL_POSITION") + " " + columns.getString("COLUMN_NAME") + " "
                                        + columns.getString("TYPE_NAME") + "/" + columns.getInt("DATA_TYPE") + " size "
                                        + columns.getInt("COLUMN_SIZE") + " digits " + columns.getInt("DECIMAL_DIGITS")
                                        + " nullable " + columns.getInt("NULLABLE") + " default "
                                        + columns.getString("COLUMN_DEF")
                                        + " auto " + columns.getString("IS_AUTOINCREMENT"));
                    }
                    for (String table : new String[] {"parent", "child"}) {
                        ResultSet pk = md.getPrimaryKeys(null, schema, table);
                        while (pk.next()) {
                            t.add(
                                    "pk " + table,
                                    pk.getString("COLUMN_NAME") + " seq " + pk.getInt("KEY_SEQ") + " "
                                            + pk.getString("PK_NAME"));
                        }
                    }
                    ResultSet fk = md.getImportedKeys(null, schema, "child");
                    while (fk.next()) {
                        t.add(
                                "fk",
                                fk.getString("FKCOLUMN_NAME") + " -> " + fk.getString("PKTABLE_NAME") + "."
                                        + fk.getString("PKCOLUMN_NAME") + " " + fk.getString("FK_NAME"));
                    }
                    ResultSet idx = md.getIndexInfo(null, schema, "parent", false, false);
                    java.util.List<String> indexes = new java.util.ArrayList<>();
                    while (idx.next()) {
                        indexes.add(idx.getString("INDEX_NAME") + " " + idx.getString("COLUMN_NAME") + " nonUnique "
                                + idx.getBoolean("NON_UNIQUE"));
                    }
                    java.util.Collections.sort(indexes);
                    t.add("indexes", indexes);
                }),
                of("metadata: result sets of DatabaseMetaData lead back to the application's connection", (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement().execute("CREATE TABLE lead (id int PRIMARY KEY)");
                    java.sql.DatabaseMetaData md = c.getMetaData();
                    t.add("metadata connection identity", md.getConnection() == c);
                    ResultSet tables = md.getTables(null, c.getSchema(), "lead", null);
                    Statement owner = tables.getStatement();
                    t.add("statement null", owner == null);
                    t.add("statement's connection identity", owner == null || owner.getConnection() == c);
                    t.add(
                            "statement's connection isWrapperFor PGConnection",
                            owner == null || owner.getConnection().isWrapperFor(org.postgresql.PGConnection.class));
                    t.add("next", tables.next());
                    t.add("name", tables.getString("TABLE_NAME"));
                }),
                of("metadata: ResultSetMetaData of a query over a table", (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement()
                            .execute("CREATE TABLE rm (id serial PRIMARY KEY, name varchar(20) NOT NULL,"
                                    + " price numeric(8,2), note text)");
                    ResultSet rs = c.createStatement()
                            .executeQuery("SELECT id, name AS label, price, note, 1 + 1 AS expr FROM rm");
                    java.sql.ResultSetMetaData md = rs.getMetaData();
                    t.add("count", md.getColumnCount());
                    for (int i = 1; i <= md.getColumnCount(); i++) {
                        t.add(
                                "column " + i,
                                md.getColumnName(i) + " label " + md.getColumnLabel(i) + " type "
                                        + md.getColumnTypeName(i) + "/" + md.getColumnType(i) + " class "
                                        + md.getColumnClassName(i)
                                        + " precision " + md.getPrecision(i) + " scale " + md.getScale(i) + " nullable "
                                        + md.isNullable(i) + " auto " + md.isAutoIncrement(i) + " table "
                                        + md.getTableName(i)
                                        + " display " + md.getColumnDisplaySize(i) + " signed " + md.isSigned(i));
                    }
                    PreparedStatement ps = c.prepareStatement("SELECT name, price FROM rm WHERE id = ?");
                    java.sql.ResultSetMetaData before = ps.getMetaData();
                    t.add(
                            "prepared metadata before execute",
                            before == null
                                    ? "null"
                                    : before.getColumnCount() + " " + before.getColumnName(1) + " "
                                            + before.getColumnTypeName(2));
                    t.add(
                            "isWrapperFor PGResultSetMetaData",
                            md.isWrapperFor(org.postgresql.PGResultSetMetaData.class));
                }),
                of("metadata: ParameterMetaData of prepared statements", (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement().execute("CREATE TABLE pm (id int, name text, at date, amount numeric(5,1))");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO pm VALUES (?, ?, ?, ?)");
                    java.sql.ParameterMetaData md = ps.getParameterMetaData();
                    t.add("count", md.getParameterCount());
                    for (int i = 1; i <= md.getParameterCount(); i++) {
                        t.add(
                                "parameter " + i,
                                md.getParameterTypeName(i) + "/" + md.getParameterType(i) + " class "
                                        + md.getParameterClassName(i) + " mode " + md.getParameterMode(i) + " nullable "
                                        + md.isNullable(i));
                    }
                    t.call("out of range", () -> md.getParameterType(5));
                    PreparedStatement none = c.prepareStatement("SELECT 1");
                    t.add("no parameters", none.getParameterMetaData().getParameterCount());
                }),
                of("metadata: unwrap and isWrapperFor on connections, statements and result sets", (env, t) -> {
                    Connection c = env.connection();
                    t.add("connection isWrapperFor PGConnection", c.isWrapperFor(org.postgresql.PGConnection.class));
                    t.add("connection isWrapperFor Connection", c.isWrapperFor(Connection.class));
                    t.add("connection isWrapperFor String", c.isWrapperFor(String.class));
                    t.add("connection unwrap PGConnection", c.unwrap(org.postgresql.PGConnection.class) != null);
                    t.add("connection unwrap Connection", c.unwrap(Connection.class) instanceof Connection);
                    t.call("connection unwrap String", () -> c.unwrap(String.class));
                    Statement s = c.createStatement();
                    t.add("statement isWrapperFor PGStatement", s.isWrapperFor(org.postgresql.PGStatement.class));
                    t.add("statement unwrap PGStatement", s.unwrap(org.postgresql.PGStatement.class) != null);
                    PreparedStatement ps = c.prepareStatement("SELECT ?::int");
                    t.add("prepared isWrapperFor PGStatement", ps.isWrapperFor(org.postgresql.PGStatement.class));
                    t.add("prepared isWrapperFor PreparedStatement", ps.isWrapperFor(PreparedStatement.class));
                    ResultSet rs = s.executeQuery("SELECT 1");
                    t.add("resultSet isWrapperFor ResultSet", rs.isWrapperFor(ResultSet.class));
                    t.add(
                            "resultSet isWrapperFor PGRefCursorResultSet",
                            rs.isWrapperFor(org.postgresql.PGRefCursorResultSet.class));
                    t.call("statement unwrap Integer", () -> s.unwrap(Integer.class));
                    t.add(
                            "metadata isWrapperFor DatabaseMetaData",
                            c.getMetaData().isWrapperFor(java.sql.DatabaseMetaData.class));
                }));
    }

    static String queryString(Connection c, String sql) throws java.sql.SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
