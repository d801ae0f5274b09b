package dev.flushless.jdbc.tools;

import static dev.flushless.jdbc.tools.ExplainPrinter.plural;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The report of counts: what the batch sections and the transaction walk tallied (statements issued and sent, round
 * trips, estimated YugabyteDB flushes), printed as the summaries and returned as {@link Explain.Tallies}, which
 * {@code ExplainAgreementTest} holds to what the driver sends.
 */
final class ExplainSummary {

    private ExplainSummary() {}

    /** Counters of the batch sections. */
    static final class Batches {
        long preparedIssued;
        long preparedSent;
        long preparedWritesIssued;
        long preparedFlushesAfter;
        long preparedConsensusAfter;
        long otherStatements;
        long chainIssued;
        long chainSent;
        long chainFlushes;
        long chainConsensus;

        long issued() {
            return preparedIssued + chainIssued + otherStatements;
        }

        long sent() {
            return preparedSent + chainSent + otherStatements;
        }
    }

    /** Counters of the transaction section, over the whole script. */
    static final class Transactions {
        long issued;
        long buffered;
        long readsWithoutFlush;
        long bareCommits;
        long bareRollbacks;
        long transactionEnds;
        long transactionTrips;
        long flushStatements;
        long guardStatements;
        long fusedCommits;
        /** Fused commits whose statements ran between an inline BEGIN and COMMIT (the COMMIT is in transactionEnds). */
        long inlineCommits;

        final Map<String, Long> flushes = new LinkedHashMap<>();

        void flush(String cause, int statements) {
            flushes.merge(cause, 1L, Long::sum);
            flushStatements += statements;
        }

        /** Statements sent: the flushes', their guard savepoints, every statement not buffered, COMMIT/ROLLBACK. */
        long sent() {
            return flushStatements + guardStatements + (issued - buffered) + transactionEnds;
        }
    }

    /** Prints the batch sections' summary. */
    static void printBatches(
            ExplainPrinter out, int rows, Batches b, dev.flushless.jdbc.stats.YugabyteFlushModel flushModel) {
        out.println();
        out.println("== Summary ==");
        out.println("  PreparedStatement batches (statements with parameters, " + rows + " rows each): "
                + b.preparedIssued + " issued -> " + b.preparedSent + " sent");
        out.println("  Statement batches (parameterless writes, once each): " + b.chainIssued + " issued -> "
                + b.chainSent + " sent");
        out.println("  other statements (run as sent, once each): " + b.otherStatements);
        out.println("  statements: " + b.issued() + " issued by the application -> " + b.sent() + " sent by Flushless");
        out.println("  estimated YugabyteDB flushes: " + (b.preparedWritesIssued + b.chainIssued) + " before -> "
                + (b.preparedFlushesAfter + b.chainFlushes) + " after");
        long writesIssued = b.preparedWritesIssued + b.chainIssued;
        out.println("  of which wait for consensus (in autocommit): "
                + flushModel.consensusFlushes(writesIssued, writesIssued, false) + " before -> "
                + (b.preparedConsensusAfter + b.chainConsensus) + " after");
        out.println(
                "  (model: every INSERT, UPDATE or DELETE statement waits for one flush, and one more per 3072 rows it");
        out.println(
                "  writes; a multi-row INSERT ... ON CONFLICT one per row where the server does not batch ON CONFLICT"
                        + (flushModel.onConflictBatched() ? "" : " (as here)")
                        + "; other statements and commits are not");
        out.println("  counted; the flush model above says which release and settings)");
    }

    /** Prints the transaction section's summary; returns its tallies. */
    static Explain.Tallies.Transaction printTransactions(
            ExplainPrinter out, Transactions t, dev.flushless.jdbc.stats.YugabyteFlushModel flushModel) {
        long bareEnds = t.bareCommits + t.bareRollbacks;
        String ends = (t.bareCommits > 0 || t.bareRollbacks == 0 ? t.bareCommits + " COMMIT" : "")
                + (t.bareCommits > 0 && t.bareRollbacks > 0 ? " + " : "")
                + (t.bareRollbacks > 0 ? t.bareRollbacks + " ROLLBACK" : "");
        long bareTrips = t.issued + bareEnds;
        long asIssued = t.issued - t.buffered;
        long flushCount = t.flushes.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder causes = new StringBuilder();
        t.flushes.forEach((cause, n) -> causes.append(causes.length() == 0 ? "" : ", ")
                .append(cause)
                .append(' ')
                .append(n));
        out.println();
        out.println("== Summary (flushless.mode=transaction) ==");
        out.say("statements issued: " + t.issued + " (" + t.buffered + " buffered, "
                + t.readsWithoutFlush + " read" + (t.readsWithoutFlush == 1 ? "" : "s") + " without flushing, "
                + (asIssued - t.readsWithoutFlush) + " other sent when issued)");
        out.say("flushes: " + flushCount + (flushCount == 0 ? "" : " (" + causes + ")") + ", sending "
                + plural(t.flushStatements, "statement") + " for the " + plural(t.buffered, "buffered INSERT"));
        out.say("waiting for consensus (the flush model above): "
                + (flushModel.writePipelining()
                        ? "the COMMIT only; with write pipelining the flushes inside the transaction wait for the"
                                + " tablet leaders"
                        : "every flush inside the transaction, and the COMMIT"));
        out.say("round trips: bare pgjdbc " + bareTrips + " (" + t.issued + " statements + " + ends
                + ") -> flushless.mode=transaction " + t.transactionTrips);
        out.say("statements sent (BEGIN not counted): bare pgjdbc " + bareTrips + " -> flushless.mode=transaction "
                + t.sent() + " (" + t.flushStatements + " by flushes, "
                + (t.guardStatements == 0 ? "" : t.guardStatements + " guard SAVEPOINT/RELEASE, ") + asIssued
                + " as issued, "
                + t.transactionEnds + " COMMIT/ROLLBACK"
                + (t.fusedCommits == 0 ? "" : "; " + plural(t.fusedCommits, "commit") + " fused, without COMMIT")
                + (t.inlineCommits == 0
                        ? ""
                        : "; " + plural(t.inlineCommits, "commit") + " fused with an" + " inline BEGIN/COMMIT")
                + ")");
        return new Explain.Tallies.Transaction(t.transactionTrips, t.sent(), t.transactionEnds);
    }
}
