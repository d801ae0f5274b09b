package dev.flushless.jdbc.wrapper;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The checked-in pass-through classes are exactly what {@link DelegationSources} generates from this JDK's
 * {@code java.sql} interfaces. With {@code -Dflushless.regenerate=true} the test writes them instead.
 */
class DelegationSourcesTest {

    private static final Path DIRECTORY = Path.of("src/main/java/dev/flushless/jdbc/wrapper");

    @Test
    void checkedInDelegationMatchesTheGenerator() throws IOException {
        boolean regenerate = Boolean.getBoolean("flushless.regenerate");
        for (DelegationSources.Spec spec : DelegationSources.specs()) {
            Path file = DIRECTORY.resolve(spec.name() + ".java");
            String generated = DelegationSources.source(spec);
            if (regenerate) {
                Files.writeString(file, generated, StandardCharsets.UTF_8);
                continue;
            }
            assertEquals(
                    generated,
                    Files.readString(file, StandardCharsets.UTF_8),
                    file + " is not what the generator"
                            + " writes: regenerate with mvn -q test -Dtest=DelegationSourcesTest -Dflushless.regenerate=true");
        }
    }
}
