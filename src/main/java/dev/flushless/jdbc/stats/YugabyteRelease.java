package dev.flushless.jdbc.stats;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A YugabyteDB release as its server reports it ({@code server_version}, e.g. {@code 11.2-YB-2024.2.6.2-b0}), and
 * what that release does by default where the flush model depends on it. Pure: no I/O. Stable series are numbered
 * by year ({@code 2024.2}, {@code 2025.2}), preview series {@code 2.<odd>} (e.g. {@code 2.25}, built from the main
 * branch). The defaults and their sources are in docs/semantics.md ("Estimated YugabyteDB flushes").
 *
 * @param major {@code 2024}, {@code 2025}, ... for stable series, {@code 2} for preview and older series
 * @param minor the series within the major ({@code 2024.2}: 2; {@code 2.25}: 25)
 * @param patch the third number
 * @param revision the fourth number
 * @param build the build number after {@code -b} (0 when the server reports none)
 * @param postgresMajor the PostgreSQL major the release is based on (11 or 15), 0 when not reported
 */
public record YugabyteRelease(int major, int minor, int patch, int revision, int build, int postgresMajor)
        implements Comparable<YugabyteRelease> {

    private static final Pattern VERSION =
            Pattern.compile("^(?:(\\d+)(?:\\.\\d+)*)?-YB-(\\d+)\\.(\\d+)(?:\\.(\\d+))?(?:\\.(\\d+))?(?:-b(\\d+))?");

    /** The release in {@code version} ({@code 11.2-YB-2024.2.6.2-b0}), or {@code null} when it is not YugabyteDB's. */
    public static YugabyteRelease parse(String version) {
        if (version == null) {
            return null;
        }
        Matcher m = VERSION.matcher(version.trim());
        if (!m.find()) {
            return null;
        }
        return new YugabyteRelease(
                Integer.parseInt(m.group(2)),
                Integer.parseInt(m.group(3)),
                number(m.group(4)),
                number(m.group(5)),
                number(m.group(6)),
                number(m.group(1)));
    }

    /** A release given as {@code 2025.2.8.0} or {@code 2025.2.8.0-b60} (tools, tests); {@code null} if malformed. */
    public static YugabyteRelease of(String release) {
        return release == null ? null : parse("-YB-" + release.trim());
    }

    private static int number(String digits) {
        return digits == null ? 0 : Integer.parseInt(digits);
    }

    /** A stable series ({@code 2024.2}, {@code 2025.1}, ...), numbered by year. */
    public boolean stable() {
        return major >= 2000;
    }

    /** A preview series ({@code 2.25}, {@code 2.29}, ...: odd minor, built from the main branch). */
    public boolean preview() {
        return major == 2 && minor % 2 == 1;
    }

    private boolean atLeast(int maj, int min, int pat, int rev, int bld) {
        return compareTo(new YugabyteRelease(maj, min, pat, rev, bld, 0)) >= 0;
    }

    /**
     * Whether the release has {@code yb_insert_on_conflict_read_batch_size}: from 2024.2.2 (early access) and the 2.25
     * preview series on.
     */
    public boolean hasOnConflictBatching() {
        return stable() ? atLeast(2024, 2, 2, 0, 0) : preview() && minor >= 25;
    }

    /**
     * Whether the release batches ON CONFLICT reads by default ({@code yb_insert_on_conflict_read_batch_size} 1024):
     * from 2025.1; in the 2.25 preview series from 2.25.1 (assumed: the change, yugabyte-db issue 25985, landed on
     * main in February 2025). The connection's own setting is what the driver uses; this default serves explain.
     */
    public boolean onConflictBatchedByDefault() {
        return stable() ? atLeast(2025, 1, 0, 0, 0) : preview() && atLeast(2, 25, 1, 0, 0);
    }

    /** Whether Read Committed is generally available: from 2024.2.2 (early access before). */
    public boolean readCommittedGa() {
        return stable() ? atLeast(2024, 2, 2, 0, 0) : preview() && minor >= 25;
    }

    /**
     * Whether new universes deployed with yugabyted, YugabyteDB Anywhere or Aeon run Read Committed by default
     * ({@code yb_enable_read_committed_isolation=true}): from 2025.2, and in previews from 2.29 (yugabyted).
     */
    public boolean readCommittedByDefault() {
        return stable() ? atLeast(2025, 2, 0, 0, 0) : preview() && minor >= 29;
    }

    /** Whether the release has {@code ysql_enable_write_pipelining}: from 2025.2.1 (early access), previews from 2.29. */
    public boolean hasWritePipelining() {
        return stable() ? atLeast(2025, 2, 1, 0, 0) : preview() && minor >= 29;
    }

    /**
     * Whether write pipelining is on by default: on the main branch from build 2.31.0.0-b280 (July 2026; servers
     * mostly report build 0, which counts as after it); off in every stable release up to 2026.1. Stable series after
     * 2026.1 are assumed to follow main (not confirmed, see {@link #writePipeliningDefaultConfirmed()}).
     */
    public boolean writePipeliningByDefault() {
        if (stable()) {
            return atLeast(2026, 2, 0, 0, 0);
        }
        boolean earlyMainBuild = minor == 31 && patch == 0 && revision == 0 && build > 0 && build < 280;
        return preview() && minor >= 31 && !earlyMainBuild;
    }

    /** Whether {@link #writePipeliningByDefault()} rests on a source (false: assumed for a later stable series). */
    public boolean writePipeliningDefaultConfirmed() {
        return !stable() || !atLeast(2026, 2, 0, 0, 0);
    }

    /** {@code 2024.2} or {@code 2.25}. */
    public String series() {
        return major + "." + minor;
    }

    @Override
    public int compareTo(YugabyteRelease other) {
        int c = Integer.compare(major, other.major);
        c = c != 0 ? c : Integer.compare(minor, other.minor);
        c = c != 0 ? c : Integer.compare(patch, other.patch);
        c = c != 0 ? c : Integer.compare(revision, other.revision);
        return c != 0 ? c : Integer.compare(build, other.build);
    }

    /** {@code 2024.2.6.2} (the build only when reported: {@code 2.31.0.0-b280}). */
    @Override
    public String toString() {
        return major + "." + minor + "." + patch + "." + revision + (build > 0 ? "-b" + build : "");
    }
}
