package dev.flushless.jdbc.tools;

import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.engine.Engine;
import dev.flushless.jdbc.replica.ReplicaDecision;
import dev.flushless.jdbc.tools.ExplainScript.Item;
import java.util.List;

/**
 * With {@code flushless.replicas}: where each statement would run, once in autocommit and once inside a read-only
 * transaction ({@code setReadOnly(true)}) that has sent nothing to the primary, by the driver's own
 * {@link ReplicaDecision} (replicas up, no write pending, no session change).
 */
final class ReplicaExplainer {

    private ReplicaExplainer() {}

    static void explain(ExplainPrinter out, ExplainSettings settings, List<Item> items) {
        out.println();
        out.println("== Replica reads (flushless.replicas="
                + settings.config().replicas().toString().replaceAll("[\\[\\] ]", "") + ") ==");
        out.println(
                "Where each statement would run: in autocommit, and as the first statement of a read-only transaction");
        out.println("(replicas up, no write of the driver pending, no session change before it).");
        for (Item item : items) {
            StatementDescription d = item.description();
            boolean query = d.kind() == StatementDescription.Kind.SELECT;
            boolean proven = d.provenReadOnlyForReplica();
            ReplicaDecision.Outcome autocommit = ReplicaDecision.decide(new ReplicaDecision.Facts(
                    query, true, false, false, false, proven, false, false, true, false, true));
            ReplicaDecision.Outcome readOnly = ReplicaDecision.decide(new ReplicaDecision.Facts(
                    query, false, true, false, false, proven, false, false, true, false, true));
            out.println("[" + item.number() + "] line " + item.line() + ": autocommit: " + where(autocommit)
                    + "; read-only transaction: " + where(readOnly)
                    + (query
                            ? ""
                            : Engine.invalidatesCatalog(d.kind())
                                    ? " (a session change: the connection stops routing)"
                                    : ""));
        }
    }

    private static String where(ReplicaDecision.Outcome outcome) {
        if (outcome.replica()) {
            return "replica";
        }
        return outcome.reason() == null
                ? "primary (not a read)"
                : "primary (" + outcome.reason().code() + ")";
    }
}
