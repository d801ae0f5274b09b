package dev.flushless.jdbc.yugabyte;

/**
 * The YugabyteDB container tests ({@link YugabyteReleaseContainerTest}) on 2025.2 (PostgreSQL 15 based; ON CONFLICT batched by default; Read Committed on for yugabyted's new universes; write pipelining early access, off). Image: {@code
 * FLUSHLESS_YUGABYTE_2025_2_IMAGE} or {@link YugabyteContainer#IMAGE_2025_2}.
 */
class Yugabyte2025_2ContainerTest extends YugabyteReleaseContainerTest {

    @Override
    String image() {
        return YugabyteContainer.image("FLUSHLESS_YUGABYTE_2025_2_IMAGE", YugabyteContainer.IMAGE_2025_2);
    }

    @Override
    String series() {
        return "2025.2";
    }
}
