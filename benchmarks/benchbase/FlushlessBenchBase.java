import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs BenchBase's own main ({@code com.oltpbenchmark.DBWorkload}) and, when the JVM exits, writes the Flushless
 * driver's report (statements issued and sent, round trips, rewrites and fallbacks by reason) to the file named by
 * the system property {@code flushless.bench.report}. Launched as a single source file by run.sh, with BenchBase,
 * pgjdbc, JSqlParser and the Flushless jar on the class path; nothing of BenchBase is part of this project.
 */
public final class FlushlessBenchBase {
    public static void main(String[] args) throws Exception {
        String reportFile = System.getProperty("flushless.bench.report");
        if (reportFile != null) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    Files.writeString(Path.of(reportFile), report() + "\n");
                } catch (IOException | ReflectiveOperationException | LinkageError e) {
                    System.err.println("flushless report not written: " + e);
                }
            }));
        }
        Class.forName("com.oltpbenchmark.DBWorkload").getMethod("main", String[].class).invoke(null, (Object) args);
    }

    /** The driver-wide report as one line, or a note when the Flushless driver was not used. */
    private static String report() throws ReflectiveOperationException {
        Object report = Class.forName("dev.flushless.jdbc.FlushlessDriver").getMethod("report").invoke(null);
        return String.valueOf(report);
    }
}
