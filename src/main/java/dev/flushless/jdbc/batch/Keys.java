package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.Fallback;
import dev.flushless.jdbc.FallbackReason;
import dev.flushless.jdbc.analysis.StatementDescription.KeyColumn;
import dev.flushless.jdbc.session.ConflictFacts;
import dev.flushless.jdbc.session.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Key values as PostgreSQL compares them, for the key types this driver models (integers, numeric, text and
 * varchar with a deterministic collation, bpchar, uuid, boolean, bytea); {@code null} for anything else. Pure.
 */
final class Keys {

    /** Computes one row's key value from the bound value and the key's index in the statement's key list. */
    @FunctionalInterface
    interface KeyOf {
        Object key(Object value, int k);
    }

    private Keys() {}

    /**
     * The catalog columns of {@code keys} into {@code columns}; the name of the first one the table lacks, or
     * {@code null} when all were found.
     */
    static String missingColumn(List<KeyColumn> keys, TableInfo table, ColumnInfo[] columns) {
        for (int k = 0; k < keys.size(); k++) {
            columns[k] = table.column(keys.get(k).column());
            if (columns[k] == null) {
                return keys.get(k).column();
            }
        }
        return null;
    }

    /**
     * Fills {@code rowKeys[r]} with row r's key ({@code keyOf} of each key parameter's value, {@code null} for
     * SQL NULL), for every row of {@code rowKeys}; returns why a key value's equality is not modelled (where
     * {@code keyOf} gave {@code null}), or {@code null}.
     */
    static Fallback conflictRowKeys(
            List<Bind[]> rows,
            List<KeyColumn> keys,
            ColumnInfo[] columns,
            String[] names,
            KeyOf keyOf,
            Object[][] rowKeys) {
        for (int r = 0; r < rowKeys.length; r++) {
            rowKeys[r] = new Object[keys.size()];
            for (int k = 0; k < keys.size(); k++) {
                Bind bind = rows.get(r)[keys.get(k).parameter()];
                if (bind.isNull()) {
                    continue;
                }
                rowKeys[r][k] = keyOf.key(bind.value(), k);
                if (rowKeys[r][k] == null) {
                    return notModelled("ON CONFLICT column", names[k], columns[k], bind.value());
                }
            }
        }
        return null;
    }

    /** The fallback reason for a key value whose equality is not modelled. */
    static Fallback notModelled(String what, String name, ColumnInfo column, Object value) {
        return FallbackReason.EQUALITY_NOT_MODELLED.because(what + " " + name + " of type " + column.typeName()
                + " bound with " + value.getClass().getSimpleName() + ": equality not modelled");
    }

    /**
     * A key value as PostgreSQL compares it in a unique index, exactly (neither coarser nor finer), for the
     * types modelled here; {@code null} otherwise. Applied alike to the value bound and the value returned.
     */
    static Object alignmentKey(Object value, ColumnInfo column) {
        switch (column.typeOid()) {
            case SentType.INT2:
            case SentType.INT4:
            case SentType.INT8:
            case SentType.NUMERIC:
                return canonicalNumber(value);
            case SentType.TEXT:
            case SentType.VARCHAR:
                return column.deterministic() && value instanceof String ? value : null;
            case SentType.BPCHAR:
                return column.deterministic() && value instanceof String s ? stripTrailingSpaces(s) : null;
            case SentType.UUID_OID:
                return value instanceof java.util.UUID ? value : null;
            case SentType.BOOL:
                return value instanceof Boolean ? value : null;
            case SentType.BYTEA:
                return value instanceof byte[] bytes ? ByteBuffer.wrap(bytes.clone()) : null;
            default:
                return null;
        }
    }

    /**
     * A value that is equal for two key values whenever PostgreSQL could find them equal (it may be coarser,
     * never finer), or {@code null} when this driver does not model the column type's equality.
     */
    static Object canonicalKey(Object value, ColumnInfo column) {
        if (value instanceof Character) {
            value = value.toString();
        }
        boolean text = column.typeOid() == SentType.TEXT || column.typeOid() == SentType.VARCHAR;
        // A text key may be compared to a parameter declared bpchar, which ignores trailing spaces: coarser here.
        return text && column.deterministic() && value instanceof String s
                ? stripTrailingSpaces(s)
                : alignmentKey(value, column);
    }

    /**
     * A key value exactly as the arbiter index compares it once coerced to the column ({@link #alignmentKey}), or
     * {@code null} where coercion could change it in a way not modelled here (a fraction into an integer column,
     * more decimals than a numeric column keeps).
     */
    static Object exactKey(Object value, ColumnInfo column, ConflictFacts.ColumnFacts facts) {
        Object key = alignmentKey(value, column);
        if (key instanceof BigDecimal decimal) {
            boolean integerColumn = column.typeOid() != SentType.NUMERIC;
            int scale = integerColumn
                    ? 0
                    : facts == null || facts.typmod() < 4 ? Integer.MAX_VALUE : (short) ((facts.typmod() - 4) & 0xffff);
            if (decimal.scale() > scale || scale < 0) {
                return null;
            }
        }
        return key;
    }

    /**
     * Equal numbers as one value: integral values (whatever their Java class) as {@code Long}, others as a
     * {@code BigDecimal} without trailing zeros (so 5, 5L and 5.00 are one key, as in SQL).
     */
    private static Object canonicalNumber(Object value) {
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        BigDecimal decimal;
        if (value instanceof BigInteger big) {
            decimal = new BigDecimal(big);
        } else if (value instanceof BigDecimal big) {
            decimal = big;
        } else {
            return null;
        }
        if (decimal.signum() == 0) {
            return 0L;
        }
        BigDecimal stripped = decimal.stripTrailingZeros();
        if (stripped.scale() <= 0 && stripped.precision() - stripped.scale() <= 18) {
            return stripped.longValueExact();
        }
        return stripped;
    }

    private static String stripTrailingSpaces(String s) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == ' ') {
            end--;
        }
        return s.substring(0, end);
    }
}
