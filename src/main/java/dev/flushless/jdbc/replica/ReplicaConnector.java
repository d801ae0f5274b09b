package dev.flushless.jdbc.replica;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.util.Properties;

/**
 * How a Flushless connection opens connections of its own to the replicas (and, for position probes, to the
 * primary): with the application's URL, its host and port replaced, and the same properties (user, password, TLS).
 */
public interface ReplicaConnector {

    /** Identifies the primary and its replicas, JVM-wide: connections with equal keys share a {@link ReplicaCluster}. */
    String clusterKey();

    /** A new connection to {@code replica}. */
    Connection openReplica(HostPort replica) throws SQLException;

    /** A new connection to the primary (for position probes, off the application's path). */
    Connection openPrimary() throws SQLException;

    /** Parameters of the URL that choose among several hosts: a replica's URL names exactly one, so they go. */
    String[] HOST_CHOICE_PARAMETERS = {"targetServerType", "loadBalanceHosts", "hostRecheckSeconds"};

    /** Connects by URL through {@code driver} (pgjdbc for {@code jdbc:postgresql:}). */
    static ReplicaConnector byUrl(Driver driver, String url, Properties properties, String replicas) {
        return new ReplicaConnector() {
            @Override
            public String clusterKey() {
                return url + "|" + properties.getProperty("user", "") + "|" + replicas;
            }

            @Override
            public Connection openReplica(HostPort replica) throws SQLException {
                Properties copy = new Properties();
                copy.putAll(properties);
                for (String name : HOST_CHOICE_PARAMETERS) {
                    copy.remove(name);
                }
                copy.putIfAbsent("connectTimeout", "5");
                return driver.connect(replicaUrl(url, replica), copy);
            }

            @Override
            public Connection openPrimary() throws SQLException {
                return driver.connect(url, properties);
            }
        };
    }

    /**
     * {@code url} ({@code jdbc:postgresql://hosts/db?params}, or {@code jdbc:postgresql:db}) with its hosts replaced by
     * {@code replica} and the host-choice parameters removed.
     */
    static String replicaUrl(String url, HostPort replica) {
        int colon = url.indexOf(':', "jdbc:".length());
        String prefix = url.substring(0, colon + 1); // jdbc:postgresql:
        String rest = url.substring(colon + 1);
        String path;
        if (rest.startsWith("//")) {
            int end = rest.length();
            for (char c : new char[] {'/', '?'}) {
                int at = rest.indexOf(c, 2);
                if (at >= 0 && at < end) {
                    end = at;
                }
            }
            path = rest.substring(end);
        } else {
            path = "/" + rest;
        }
        String query = "";
        int question = path.indexOf('?');
        if (question >= 0) {
            StringBuilder kept = new StringBuilder();
            for (String parameter : path.substring(question + 1).split("&", -1)) {
                String name = parameter.contains("=") ? parameter.substring(0, parameter.indexOf('=')) : parameter;
                if (!parameter.isEmpty()
                        && !java.util.Arrays.asList(HOST_CHOICE_PARAMETERS).contains(name)) {
                    kept.append(kept.length() == 0 ? "?" : "&").append(parameter);
                }
            }
            query = kept.toString();
            path = path.substring(0, question);
        }
        if (path.isEmpty()) {
            path = "/";
        }
        return prefix + "//" + replica + path + query;
    }
}
