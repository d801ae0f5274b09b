package dev.flushless.jdbc.replica;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One replica's address, as {@code flushless.replicas} names it: {@code host:port}, {@code host} (port 5432), or
 * {@code [v6-address]:port}.
 */
public record HostPort(String host, int port) {

    /** The port a replica without one listens on (PostgreSQL's). */
    public static final int DEFAULT_PORT = 5432;

    /**
     * The replicas of a {@code flushless.replicas} value (empty for an empty value).
     *
     * @throws IllegalArgumentException naming the entry that is not {@code host[:port]}
     */
    public static List<HostPort> parseList(String value) {
        List<HostPort> out = new ArrayList<>();
        String trimmed = value == null ? "" : value.trim();
        if (trimmed.isEmpty()) {
            return out;
        }
        for (String entry : trimmed.split(",", -1)) {
            HostPort parsed = parse(entry.trim());
            if (out.contains(parsed)) {
                throw new IllegalArgumentException("the replica " + parsed + " is named twice");
            }
            out.add(parsed);
        }
        return out;
    }

    /** The canonical form of a {@code flushless.replicas} value (the property's check). */
    public static String validateList(String value) {
        StringBuilder out = new StringBuilder();
        for (HostPort replica : parseList(value)) {
            out.append(out.length() == 0 ? "" : ",").append(replica);
        }
        return out.toString();
    }

    private static HostPort parse(String entry) {
        if (entry.isEmpty()) {
            throw new IllegalArgumentException("an entry is empty (two commas, or a comma at an end)");
        }
        String host;
        String port = null;
        if (entry.startsWith("[")) {
            int close = entry.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("'" + entry + "' opens '[' without closing it");
            }
            host = entry.substring(1, close);
            String rest = entry.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    throw new IllegalArgumentException("'" + entry + "' has text after ']' that is not :port");
                }
                port = rest.substring(1);
            }
        } else {
            int colon = entry.lastIndexOf(':');
            if (colon >= 0 && entry.indexOf(':') != colon) {
                throw new IllegalArgumentException("'" + entry + "': write an IPv6 address as [address]:port");
            }
            host = colon < 0 ? entry : entry.substring(0, colon);
            port = colon < 0 ? null : entry.substring(colon + 1);
        }
        if (host.isEmpty() || !host.matches("[A-Za-z0-9._:%-]+")) {
            throw new IllegalArgumentException("'" + entry + "' is not host:port (the host is empty or has characters"
                    + " a host name cannot have)");
        }
        int number = DEFAULT_PORT;
        if (port != null) {
            try {
                number = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                number = -1;
            }
            if (number < 1 || number > 65535) {
                throw new IllegalArgumentException(
                        "'" + entry + "' has port '" + port + "', not a number from 1 to" + " 65535");
            }
        }
        return new HostPort(host.toLowerCase(Locale.ROOT), number);
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
