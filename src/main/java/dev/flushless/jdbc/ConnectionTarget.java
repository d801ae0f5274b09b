package dev.flushless.jdbc;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Properties;

/**
 * A {@code jdbc:flushless:} URL and its properties, split into what the delegate driver receives
 * (the {@code jdbc:<rest>} URL and properties with every {@code flushless.*} key removed) and the
 * validated Flushless settings.
 *
 * <p>Precedence, as in pgjdbc: a setting in the URL query string wins over the same key in the
 * {@link Properties}.
 */
final class ConnectionTarget {

    final String delegateUrl;
    final Properties delegateProperties;
    final FlushlessConfig config;

    private ConnectionTarget(String delegateUrl, Properties delegateProperties, FlushlessConfig config) {
        this.delegateUrl = delegateUrl;
        this.delegateProperties = delegateProperties;
        this.config = config;
    }

    /**
     * Splits {@code url} (which must start with {@link FlushlessDriver#URL_PREFIX}) and {@code info}.
     *
     * @throws SQLException SQLState 22023 for an unknown {@code flushless.*} key or a bad value
     */
    static ConnectionTarget parse(String url, Properties info) throws SQLException {
        Properties settings = new Properties();
        Properties delegateProperties = info == null ? new Properties() : info;
        if (info != null) {
            boolean hasFlushlessKeys = false;
            for (String name : info.stringPropertyNames()) {
                if (name.startsWith(FlushlessProperty.PREFIX)) {
                    settings.setProperty(name, info.getProperty(name));
                    hasFlushlessKeys = true;
                }
            }
            if (hasFlushlessKeys) {
                delegateProperties = new Properties();
                for (String name : info.stringPropertyNames()) {
                    if (!name.startsWith(FlushlessProperty.PREFIX)) {
                        delegateProperties.setProperty(name, info.getProperty(name));
                    }
                }
            }
        }
        // Strip the prefix by position, never by replace: "flushless:" may occur again later in the URL.
        String delegateUrl = "jdbc:" + url.substring(FlushlessDriver.URL_PREFIX.length());
        delegateUrl = takeSettingsFromQuery(delegateUrl, settings);
        return new ConnectionTarget(delegateUrl, delegateProperties, FlushlessConfig.from(settings));
    }

    /**
     * Moves the {@code flushless.*} parameters of the URL's query string into {@code settings} (overriding
     * what the properties said) and returns the URL without them, other parameters untouched and in order.
     */
    private static String takeSettingsFromQuery(String url, Properties settings) {
        int queryStart = url.indexOf('?');
        if (queryStart < 0) {
            return url;
        }
        StringBuilder kept = new StringBuilder();
        for (String parameter : url.substring(queryStart + 1).split("&", -1)) {
            int equals = parameter.indexOf('=');
            String name = decode(equals < 0 ? parameter : parameter.substring(0, equals));
            if (name.startsWith(FlushlessProperty.PREFIX)) {
                settings.setProperty(name, equals < 0 ? "" : decode(parameter.substring(equals + 1)));
            } else if (!parameter.isEmpty()) {
                kept.append(kept.length() == 0 ? "" : "&").append(parameter);
            }
        }
        String base = url.substring(0, queryStart);
        return kept.length() == 0 ? base : base + '?' + kept;
    }

    private static String decode(String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            return text; // leave malformed escapes to the delegate driver, which reports its own error
        }
    }
}
