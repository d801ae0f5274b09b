package dev.flushless.jdbc.wrapper;

import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.BatchRecorder;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.engine.Engine;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.StringJoiner;

/**
 * What a {@link WrappedPreparedStatement} recorded of its setters and batch rows, and which of its batch rows
 * pgjdbc's own batch holds too: while a batch is small enough to run as sent ({@link Engine#asSentRowsAhead}), each
 * row is also handed to pgjdbc's batch as it is added (mirrored), so that running it as sent needs no replay; once it
 * grows past that, pgjdbc's copies are cleared and the batch is planned from the recorded rows. When a setter's value
 * cannot be kept, recording stops for the current batch and its rows go to pgjdbc's batch.
 */
final class ParameterRecording {

    /** Why a setter's value cannot be kept for a replay: recording stops for the current batch. */
    private static final dev.flushless.jdbc.Fallback STREAM_OR_LOB =
            dev.flushless.jdbc.FallbackReason.STREAM_OR_LOB.get();

    private static final dev.flushless.jdbc.Fallback UNKEPT_OBJECT =
            dev.flushless.jdbc.FallbackReason.UNKEPT_OBJECT.get();

    /** The application's pgjdbc statement. */
    private final PreparedStatement prepared;

    private final Engine engine;
    private final StatementDescription.Kind leadingKind;
    private final String sql;
    /** Recorded setters and batch rows; {@code null} while the statement runs as sent. */
    private BatchRecorder recorder;
    /** Why recording stopped for the current batch, or {@code null}. */
    private dev.flushless.jdbc.Fallback stoppedReason;
    /** Rows that went straight to pgjdbc's batch after recording stopped. */
    private int passedThroughRows;
    /**
     * The most recorded rows of the current batch that also go to pgjdbc's batch as they are added (the engine's
     * estimate, asked at the batch's first row).
     */
    private int mirrorLimit;
    /**
     * Recorded rows of the current batch that are in pgjdbc's batch too: either every recorded row (all were handed
     * on as they were added) or none (the batch grew past {@link #mirrorLimit} and pgjdbc's batch was cleared).
     */
    private int mirrored;
    /** The recorded rows of the batch running now while pgjdbc's batch holds exactly them, else {@code null}. */
    private List<Bind[]> inPgjdbc;
    /** Whether {@link #mirrorLimit} was asked for the current batch. */
    private boolean limitKnown;
    /** Some setter since the last {@link #syncPgjdbc} was recorded without reaching pgjdbc ({@link #deferred}). */
    private boolean lagging;
    /** Parameter positions pgjdbc accepted a value for on this statement: a setter there cannot fail. */
    private final java.util.BitSet accepted = new java.util.BitSet();
    /** The application held pgjdbc's statement ({@code unwrap}): every setter reaches pgjdbc from then on. */
    private boolean handedOver;

    ParameterRecording(PreparedStatement prepared, Engine engine, StatementDescription.Kind leadingKind, String sql) {
        this.prepared = prepared;
        this.engine = engine;
        this.leadingKind = leadingKind;
        this.sql = sql;
        this.recorder = engine.recordsParameters(leadingKind) ? new BatchRecorder() : null;
    }

    /** Whether the statement records its parameters now. */
    boolean on() {
        return recorder != null;
    }

    /** The current parameter values while recording, else {@code null}. */
    Bind[] current() {
        return recorder == null ? null : recorder.current();
    }

    /** Why recording stopped for the current batch, or {@code null}. */
    dev.flushless.jdbc.Fallback stoppedReason() {
        return stoppedReason;
    }

    /** Rows that went straight to pgjdbc's batch after recording stopped. */
    int passedThroughRows() {
        return passedThroughRows;
    }

    /** Whether the statement records and the current batch has recorded rows. */
    boolean hasRows() {
        return recorder != null && recorder.hasRows();
    }

    /** The rows of the current batch handed to pgjdbc as they are added ({@link Engine#asSentRowsAhead}, asked once). */
    private int mirrorLimit() {
        if (!limitKnown) {
            mirrorLimit = engine.asSentRowsAhead(leadingKind, sql);
            limitKnown = true;
        }
        return mirrorLimit;
    }

    /**
     * Records a setter's value without handing it to pgjdbc, when nothing can tell: recording, the current batch past
     * the rows handed to pgjdbc as they are added (so this row is planned from the recorded values, or replayed), the
     * position one pgjdbc accepted a value for before (the only error these setters raise is a position out of range,
     * or a closed statement), the statement open and never unwrapped. pgjdbc's parameters then lag behind the
     * application's until {@link #syncPgjdbc}, which every use of them calls first. Saves pgjdbc's conversion of every
     * value a coalesced batch sends in its own form anyway. False: the caller hands the value to pgjdbc and records it.
     */
    boolean deferred(int index, Bind bind) throws SQLException {
        if (recorder == null || handedOver) {
            return false;
        }
        boolean single = false;
        if (!accepted(index) || recorder.rowCount() < mirrorLimit()) {
            // Not a row of a batch planned from its recorded values: a write that mode=transaction may buffer is
            // deferred too, where pgjdbc would accept the position (one it accepted, or one of the parameters of a
            // statement the analysis fully understood, which it counts as pgjdbc does).
            single = engine.transactions().mayBuffer(leadingKind) && (accepted(index) || withinParameters(index));
            if (!single) {
                return false;
            }
        }
        if (prepared.isClosed()) {
            return false;
        }
        recorder.set(index, bind);
        lagging = true;
        return true;
    }

    /**
     * Whether pgjdbc accepted a value at {@code index} on this statement. False for a position pgjdbc rejects (0 or
     * negative), so that its setter raises pgjdbc's own SQLException there (22023), as under bare pgjdbc.
     */
    private boolean accepted(int index) {
        return index >= 0 && accepted.get(index);
    }

    /** The statement's parameter count where its analysis fully understood it, else 0 (asked once). */
    private int knownParameters = -1;

    private boolean withinParameters(int index) {
        if (knownParameters < 0) {
            StatementDescription description = engine.analyzer().describe(sql);
            knownParameters =
                    description.isCoalescable() && description.isSingleStatement() ? description.parameterCount() : 0;
        }
        return index >= 1 && index <= knownParameters;
    }

    /** pgjdbc's setter of a value that {@link #set} may keep from pgjdbc until it is needed. */
    interface PgjdbcSetter {
        void set() throws SQLException;
    }

    /** A common setter: recorded only while {@link #deferred} says so, else handed to pgjdbc and recorded. */
    void set(int index, Bind bind, PgjdbcSetter pgjdbc) throws SQLException {
        if (!deferred(index, bind)) {
            pgjdbc.set();
            record(index, bind);
        }
    }

    /** Before pgjdbc uses its parameters (an execution, a row added to its batch): they are the application's again. */
    void syncPgjdbc() throws SQLException {
        if (lagging && recorder != null && !prepared.isClosed()) {
            Bind[] current = recorder.current();
            apply(current, hasNull(current) ? recorder.valuesBeforeCurrent() : null);
        }
        lagging = false;
    }

    /** {@link #syncPgjdbc} for {@code toString()}, which must not fail. */
    void syncQuietly() {
        try {
            syncPgjdbc();
        } catch (SQLException | RuntimeException e) {
            // pgjdbc then renders what it holds
        }
    }

    /** The application holds pgjdbc's statement from now on: it gets the application's values, and every later one. */
    void handOver() throws SQLException {
        syncPgjdbc();
        handedOver = true;
    }

    /** {@code addBatch()}: records the row, and hands it to pgjdbc's batch while the batch is mirrored. */
    void addBatch() throws SQLException {
        if (recorder != null && !prepared.isClosed()) {
            int before = recorder.rowCount();
            if (mirrored == before && before < mirrorLimit()) {
                syncPgjdbc(); // values a previous batch kept from pgjdbc
                prepared.addBatch(); // pgjdbc's own copy of the current parameters, as bare pgjdbc makes it
                mirrored++;
            } else if (mirrored > 0) {
                // the batch may be coalesced now: it is planned from the recorded rows, pgjdbc's copies go
                prepared.clearBatch();
                mirrored = 0;
            }
            recorder.addRow();
        } else {
            prepared.addBatch();
            passedThroughRows++;
        }
    }

    /** The recorded rows of the batch about to run, noting whether pgjdbc's batch holds exactly them. */
    List<Bind[]> takeRows() {
        List<Bind[]> rows = recorder.takeRows();
        inPgjdbc = mirrored == rows.size() ? rows : null;
        return rows;
    }

    /**
     * Makes pgjdbc's own batch hold {@code rows}, for running it. When pgjdbc's batch already holds exactly these rows
     * (handed on as the application added them) it stays as it is: what bare pgjdbc runs, with the application's
     * parameters left set. Otherwise the rows are handed to it exactly as the application's calls would have (each
     * row from cleared parameters, so an unset position stays unset; then the current values restored).
     */
    void handToPgjdbc(List<Bind[]> rows) throws SQLException {
        if (rows == inPgjdbc && mirrored == rows.size()) {
            inPgjdbc = null;
            mirrored = 0;
            return;
        }
        if (mirrored > 0) {
            prepared.clearBatch(); // e.g. rows other than the batch's own: nothing of the batch may run twice
            mirrored = 0;
        }
        inPgjdbc = null;
        Bind[] earlier = null;
        for (Bind[] row : rows) {
            earlier = replay(recorder, row, earlier);
            prepared.addBatch();
        }
        if (recorder != null) {
            apply(recorder.current(), earlier);
        }
        lagging = false;
    }

    /**
     * pgjdbc's rendering ({@code toString()}) of {@code delegate}, the application's statement. After
     * {@code addBatch()} pgjdbc renders every row of its batch, joined by {@code ";\n"}; the rows this statement
     * recorded are not in pgjdbc's batch, so each is rendered by pgjdbc from its values (set on pgjdbc's statement as a
     * replay sets them, the current values restored afterwards).
     */
    String render(Statement delegate) {
        if (recorder == null || !recorder.hasRows() || passedThroughRows > 0 || mirrored > 0) {
            return delegate.toString(); // pgjdbc's batch holds the rows (passed through or handed on as added)
        }
        BatchRecorder rendered = recorder;
        try {
            if (prepared.isClosed()) {
                return delegate.toString();
            }
        } catch (SQLException e) {
            return delegate.toString();
        }
        StringJoiner rows = new StringJoiner(";\n");
        Bind[] earlier = null;
        try {
            for (Bind[] row : rendered.rows()) {
                earlier = replay(rendered, row, earlier);
                rows.add(delegate.toString());
            }
            return rows.toString();
        } catch (SQLException | RuntimeException e) {
            return delegate.toString();
        } finally {
            try {
                apply(rendered.current(), earlier);
            } catch (SQLException | RuntimeException ignored) {
                // rendering must not fail; the values are restored as far as pgjdbc takes them back
            }
        }
    }

    /** After a setter reached pgjdbc: keeps its value for the batch, while recording. */
    void record(int index, Bind bind) {
        accepted.set(index);
        if (recorder != null) {
            recorder.set(index, bind);
        }
    }

    /** A setObject value's bind, computed only while recording; recording stops when the value cannot be kept. */
    Bind keepable(Bind bind) throws SQLException {
        if (recorder != null && bind == null) {
            stopRecording(UNKEPT_OBJECT);
        }
        return bind;
    }

    /**
     * Sets {@code values} on pgjdbc's statement from cleared parameters, so that a position the application left unset
     * stays unset, and as pgjdbc would have typed them. pgjdbc keeps a parameter's earlier type when a NULL of no
     * particular type is set over it ({@code SimpleParameterList.bind}, so that it need not parse the statement again):
     * {@code setNull(i, Types.ARRAY)} after an {@code setArray} still sends an int4[], and the statement prepared for
     * the earlier rows serves the row. So before a NULL, the value last set at its position since the application's last
     * {@code clearParameters()} ({@code earlier}, {@link BatchRecorder#valuesAfter}) is set first, as the application's
     * calls had set it. Without it pgjdbc parsed the statement again for such a row and for the next, and a value the
     * next row's custom plan could not take failed while the server planned the INSERT, before its serial column's
     * default drew an id, where bare pgjdbc's prepared statement drew one first (an id fewer under
     * {@code flushless.exactSequences}, found by the differential tester).
     */
    private void apply(Bind[] values, Bind[] earlier) throws SQLException {
        prepared.clearParameters();
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                continue;
            }
            if (values[i].value() == null && earlier != null && i < earlier.length && earlier[i] != null) {
                earlier[i].applyTo(prepared, i + 1); // the type pgjdbc keeps under an untyped NULL
            }
            values[i].applyTo(prepared, i + 1);
        }
    }

    /** {@link #apply} for the next of {@code from}'s rows in a replay; returns the values last set after it. */
    private Bind[] replay(BatchRecorder from, Bind[] row, Bind[] earlier) throws SQLException {
        Bind[] before = from != null && from.followsClear(row) ? null : earlier;
        apply(row, before);
        return BatchRecorder.valuesAfter(before, row);
    }

    /** Whether {@code values} set a NULL somewhere (whose type pgjdbc may take from the value before it). */
    private static boolean hasNull(Bind[] values) {
        for (Bind bind : values) {
            if (bind != null && bind.value() == null) {
                return true;
            }
        }
        return false;
    }

    /** Before a setter whose value is not kept (a stream, a large object, ...): recording stops ({@link #STREAM_OR_LOB}). */
    void unkeptValue() throws SQLException {
        stopRecording(STREAM_OR_LOB);
    }

    /** Stops recording for the current batch: rows recorded so far go to pgjdbc's batch now. */
    private void stopRecording(dev.flushless.jdbc.Fallback reason) throws SQLException {
        if (recorder == null) {
            return;
        }
        syncPgjdbc(); // pgjdbc's parameters are the application's from here on
        BatchRecorder stopped = recorder;
        recorder = null;
        stoppedReason = reason;
        passedThroughRows = stopped.rows().size();
        if (mirrored == passedThroughRows) {
            mirrored = 0; // pgjdbc's batch and parameters already hold what the application set
            return;
        }
        mirrored = 0; // none: pgjdbc's batch was cleared when the batch grew past the limit
        Bind[] earlier = null;
        for (Bind[] row : stopped.rows()) {
            earlier = replay(stopped, row, earlier);
            prepared.addBatch();
        }
        apply(stopped.current(), earlier);
    }

    /**
     * After a batch ran or was cleared. A statement whose recording stopped stays unrecorded until
     * {@code clearParameters()}: the values set since the stop were not recorded.
     */
    void resetBatch() throws SQLException {
        if (recorder != null) {
            recorder.clearRows();
        }
        limitKnown = false;
        if (mirrored > 0) {
            // the rows ran another way (coalesced, buffered, ridden along) or failed: pgjdbc's copies go with them
            // (a closed statement's batch is gone with it, and its error is the one the application must see)
            mirrored = 0;
            if (!prepared.isClosed()) {
                prepared.clearBatch();
            }
        }
        inPgjdbc = null;
        passedThroughRows = 0;
    }

    /** {@code clearParameters()}, after pgjdbc's: a statement whose recording stopped records again. */
    void parametersCleared() throws SQLException {
        lagging = false; // pgjdbc's parameters were cleared too
        if (recorder != null) {
            recorder.clearParameters();
        } else if (stoppedReason != null && !prepared.isClosed()) {
            // every parameter is unset again, so recording can resume with nothing unknown
            recorder = new BatchRecorder();
            stoppedReason = null;
        }
    }
}
