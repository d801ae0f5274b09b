import dev.flushless.jdbc.testing.LatencyProxy;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The project's latency proxy (test-jar) as a process of its own: {@code ProxyMain <host> <port> <one-way delay ms>
 * <port file> <count file>} listens on 127.0.0.1, writes its port to the port file, and on exit (SIGTERM) writes the
 * protocol round trips it counted. Run by run.sh in front of the server for BenchBase's execute phase.
 */
public final class ProxyMain {
    public static void main(String[] args) throws Exception {
        LatencyProxy proxy = LatencyProxy.start(args[0], Integer.parseInt(args[1]),
                Math.round(Double.parseDouble(args[2]) * 1000));
        Path counts = Path.of(args[4]);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                Files.writeString(counts, "roundTrips=" + proxy.roundTrips() + " syncs=" + proxy.syncs()
                        + " simpleQueries=" + proxy.simpleQueries() + " connections=" + proxy.connections()
                        + " meanLatenessMicros=" + Math.round(proxy.meanLatenessMicros()) + "\n");
            } catch (Exception e) {
                System.err.println("proxy counts not written: " + e);
            }
        }));
        Files.writeString(Path.of(args[3]), proxy.port() + "\n");
        Thread.currentThread().join();
    }
}
