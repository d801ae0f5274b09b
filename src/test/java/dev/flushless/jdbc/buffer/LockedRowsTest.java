package dev.flushless.jdbc.buffer;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.analysis.StatementDescription.LockStrength;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link LockedRows}: the index by key answers as a scan of every locking read would. */
class LockedRowsTest {

    @Test
    void aRowReadByTheSameKeyIsHeldAndOthersAreNot() {
        LockedRows rows = new LockedRows();
        for (int i = 1; i <= 15; i++) {
            rows.locked(7, Map.of("s_w_id", 1, "s_i_id", i), LockStrength.UPDATE);
        }
        assertTrue(rows.holdsForUpdate(7, Map.of("s_w_id", 1, "s_i_id", 9)));
        assertFalse(rows.holdsForUpdate(7, Map.of("s_w_id", 2, "s_i_id", 9)));
        assertFalse(rows.holdsForUpdate(8, Map.of("s_w_id", 1, "s_i_id", 9)), "another table");
    }

    @Test
    void aWeakLockDoesNotCoverAnUpdateEvenWhereAStrongOneOfAnotherRowIsIndexed() {
        LockedRows rows = new LockedRows();
        rows.locked(7, Map.of("id", 1), LockStrength.KEY_SHARE);
        rows.locked(7, Map.of("id", 2), LockStrength.NO_KEY_UPDATE);
        assertFalse(rows.holdsForUpdate(7, Map.of("id", 1)));
        assertTrue(rows.holdsForUpdate(7, Map.of("id", 2)));
        rows.locked(7, Map.of("id", 1), LockStrength.UPDATE);
        assertTrue(rows.holdsForUpdate(7, Map.of("id", 1)), "the same row read again, now FOR UPDATE");
    }

    @Test
    void anUpdateOfAColumnMakesItsValueUnknownForLaterMatches() {
        LockedRows rows = new LockedRows();
        rows.locked(7, Map.of("id", 1, "code", "a"), LockStrength.UPDATE);
        rows.updated(7, Map.of("id", 1, "code", "a"), List.of("code"));
        assertFalse(rows.holdsForUpdate(7, Map.of("id", 1, "code", "a")), "code may have changed");
        assertTrue(rows.holdsForUpdate(7, Map.of("id", 1)), "a subset of the read's columns scans");
    }

    @Test
    void readsWithOtherKeyColumnsAreScanned() {
        LockedRows rows = new LockedRows();
        rows.locked(7, Map.of("id", 1), LockStrength.UPDATE);
        rows.locked(7, Map.of("id", 2, "code", "b"), LockStrength.UPDATE);
        assertTrue(rows.holdsForUpdate(7, Map.of("id", 2)), "matched by the wider read's id");
        assertTrue(rows.holdsForUpdate(7, Map.of("id", 1)));
        assertFalse(rows.holdsForUpdate(7, Map.of("id", 1, "code", "b")));
        rows.forget();
        assertTrue(rows.isEmpty());
        assertFalse(rows.holdsForUpdate(7, Map.of("id", 1)));
    }
}
