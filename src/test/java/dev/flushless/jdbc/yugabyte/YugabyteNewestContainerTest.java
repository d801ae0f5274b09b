package dev.flushless.jdbc.yugabyte;

/**
 * The YugabyteDB container tests ({@link YugabyteReleaseContainerTest}) on the newest release (pinned to the newest build the release notes confirmed; set FLUSHLESS_YUGABYTE_NEWEST_IMAGE, e.g. to yugabytedb/yugabyte:latest, for a later one). Image: {@code
 * FLUSHLESS_YUGABYTE_NEWEST_IMAGE} or {@link YugabyteContainer#IMAGE_NEWEST}.
 */
class YugabyteNewestContainerTest extends YugabyteReleaseContainerTest {

    @Override
    String image() {
        return YugabyteContainer.image("FLUSHLESS_YUGABYTE_NEWEST_IMAGE", YugabyteContainer.IMAGE_NEWEST);
    }

    @Override
    String series() {
        return null;
    }
}
