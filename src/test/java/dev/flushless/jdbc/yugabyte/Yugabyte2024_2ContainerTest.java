package dev.flushless.jdbc.yugabyte;

/**
 * The YugabyteDB container tests ({@link YugabyteReleaseContainerTest}) on 2024.2 (PostgreSQL 11 based; ON CONFLICT batching exists, off; Read Committed GA, not the default). Image: {@code
 * FLUSHLESS_YUGABYTE_2024_2_IMAGE} or {@link YugabyteContainer#IMAGE_2024_2}.
 */
class Yugabyte2024_2ContainerTest extends YugabyteReleaseContainerTest {

    @Override
    String image() {
        return YugabyteContainer.image("FLUSHLESS_YUGABYTE_2024_2_IMAGE", YugabyteContainer.IMAGE_2024_2);
    }

    @Override
    String series() {
        return "2024.2";
    }
}
