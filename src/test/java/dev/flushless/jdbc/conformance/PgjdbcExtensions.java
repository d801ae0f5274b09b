package dev.flushless.jdbc.conformance;

import static dev.flushless.jdbc.conformance.Behaviour.of;

import java.io.StringReader;
import java.sql.Connection;
import java.util.List;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/** Conformance behaviours: pgjdbc's own API reached through {@code unwrap} (COPY, LISTEN/NOTIFY, large objects). */
final class PgjdbcExtensions {

    private PgjdbcExtensions() {
    }

    static List<Behaviour> behaviours() {
        return List.of(
                of("copy in and out through unwrap(PGConnection).getCopyAPI()", (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement().execute("CREATE TABLE copied (id int PRIMARY KEY, name text)");
                    CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
                    t.add("copied in", copy.copyIn("COPY copied FROM STDIN (FORMAT csv)",
                            new StringReader("1,one\n2,two\n3,\"th,ree\"\n")));
                    java.io.StringWriter out = new java.io.StringWriter();
                    t.add("copied out", copy.copyOut("COPY (SELECT * FROM copied ORDER BY id) TO STDOUT (FORMAT csv)", out));
                    t.add("csv", out.toString());
                }));
    }
}
