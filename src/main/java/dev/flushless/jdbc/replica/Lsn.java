package dev.flushless.jdbc.replica;

import java.util.Locale;

/** PostgreSQL WAL positions ({@code pg_lsn}, written {@code X/Y} in hexadecimal) as unsigned 64-bit numbers. */
public final class Lsn {

    private Lsn() {}

    /**
     * The position {@code text} ({@code 16/B374D848}); {@code 0} for {@code null}.
     *
     * @throws IllegalArgumentException when the text is not a position
     */
    public static long parse(String text) {
        if (text == null) {
            return 0;
        }
        int slash = text.indexOf('/');
        if (slash <= 0 || slash == text.length() - 1 || slash > 8 || text.length() - slash - 1 > 8) {
            throw new IllegalArgumentException("not a WAL position (X/Y in hexadecimal): '" + text + "'");
        }
        try {
            long high = Long.parseLong(text.substring(0, slash), 16);
            long low = Long.parseLong(text.substring(slash + 1), 16);
            return (high << 32) | low;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a WAL position (X/Y in hexadecimal): '" + text + "'", e);
        }
    }

    /** {@code position} as PostgreSQL writes a {@code pg_lsn}. */
    public static String format(long position) {
        return Long.toHexString(position >>> 32).toUpperCase(Locale.ROOT) + "/"
                + Long.toHexString(position & 0xFFFFFFFFL).toUpperCase(Locale.ROOT);
    }

    /** Whether {@code a} is at or past {@code b} (positions compare unsigned). */
    public static boolean atLeast(long a, long b) {
        return Long.compareUnsigned(a, b) >= 0;
    }

    /** The later of two positions. */
    public static long max(long a, long b) {
        return atLeast(a, b) ? a : b;
    }
}
