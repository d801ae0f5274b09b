package dev.flushless.jdbc.wrapper;

import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Writes the pass-through halves of the JDBC facades ({@code src/main/java/dev/flushless/jdbc/wrapper/*Delegation.java})
 * from the {@code java.sql} interfaces: every method calls the same method of the wrapped pgjdbc object and returns
 * what it returns. The hand-written facades extend them and override only what has behaviour. Plain Java source, so
 * stack traces and coverage read as usual; no bytecode generation, no reflection at run time.
 *
 * <p>{@link DelegationSourcesTest} regenerates them and fails when a checked-in file differs;
 * {@code mvn -q test -Dtest=DelegationSourcesTest -Dflushless.regenerate=true} rewrites them (after a JDBC or
 * generator change).
 */
final class DelegationSources {

    /** One generated class. */
    record Spec(
            String name,
            Class<?> iface,
            String javadoc,
            String superclass,
            String field,
            boolean finalField,
            String constructorParameters,
            String superCall,
            boolean declaredOnly,
            boolean wrapResultSets,
            List<Method> extra,
            PgjdbcInterface pgjdbc) {}

    /**
     * A pgjdbc interface the facade implements too (code that casts instead of unwrapping works unchanged): its methods
     * call {@code accessor()}, which the facade implements with pgjdbc's own object.
     */
    record PgjdbcInterface(Class<?> iface, String accessor) {}

    static List<Spec> specs() {
        List<Method> textMethods = Arrays.stream(Statement.class.getMethods())
                .filter(m -> m.getParameterCount() > 0
                        && m.getParameterTypes()[0] == String.class
                        && (m.getName().startsWith("execute") || m.getName().equals("addBatch")))
                .toList();
        return List.of(
                new Spec(
                        "ConnectionDelegation",
                        Connection.class,
                        "a {@link Connection} and pgjdbc's {@code PGConnection}",
                        null,
                        "delegate",
                        true,
                        "Connection delegate",
                        null,
                        false,
                        false,
                        List.of(),
                        new PgjdbcInterface(org.postgresql.PGConnection.class, "pgConnection")),
                new Spec(
                        "StatementDelegation",
                        Statement.class,
                        "a {@link Statement} and pgjdbc's {@code PGStatement}",
                        null,
                        "delegate",
                        true,
                        "Statement delegate",
                        null,
                        false,
                        false,
                        List.of(),
                        new PgjdbcInterface(org.postgresql.PGStatement.class, "pgStatement")),
                new Spec(
                        "PreparedStatementDelegation",
                        PreparedStatement.class,
                        "a {@link PreparedStatement} (the methods"
                                + " it adds to {@link Statement}; and the ones that take SQL text, which pgjdbc rejects on a"
                                + " prepared statement)",
                        "WrappedStatement",
                        "prepared",
                        true,
                        "PreparedStatement delegate, WrappedConnection connection",
                        "super(delegate, connection);",
                        true,
                        false,
                        textMethods,
                        null),
                new Spec(
                        "CallableStatementDelegation",
                        CallableStatement.class,
                        "a {@link CallableStatement} (the" + " methods it adds to {@link PreparedStatement})",
                        "WrappedPreparedStatement",
                        "callable",
                        true,
                        "CallableStatement delegate, WrappedConnection connection, String sql",
                        "super(delegate, connection, sql);",
                        true,
                        false,
                        List.of(),
                        null),
                new Spec(
                        "ResultSetDelegation",
                        ResultSet.class,
                        "a {@link ResultSet}",
                        null,
                        "delegate",
                        false,
                        "ResultSet delegate",
                        null,
                        false,
                        false,
                        List.of(),
                        null),
                new Spec(
                        "DatabaseMetaDataDelegation",
                        DatabaseMetaData.class,
                        "a {@link DatabaseMetaData} (result sets" + " it returns are wrapped, see {@link #wrap})",
                        null,
                        "delegate",
                        true,
                        "DatabaseMetaData delegate",
                        null,
                        false,
                        true,
                        List.of(),
                        null));
    }

    /** The source text of {@code spec}'s class. */
    static String source(Spec spec) {
        StringBuilder out = new StringBuilder();
        out.append("package dev.flushless.jdbc.wrapper;\n\n");
        out.append("import java.sql.*;\n\n");
        out.append("/**\n");
        javadoc(
                out,
                "Pass-through for " + spec.javadoc() + ": every method calls the wrapped object's. Generated from"
                        + " the {@code java.sql} interface by {@code DelegationSources} (test sources); do not edit: regenerate"
                        + " with {@code mvn -q test -Dtest=DelegationSourcesTest -Dflushless.regenerate=true}.");
        out.append(" */\n");
        out.append("@SuppressWarnings(\"deprecation\")\n");
        out.append("abstract class ").append(spec.name());
        if (spec.superclass() != null) {
            out.append(" extends ").append(spec.superclass());
        }
        out.append(" implements ").append(spec.iface().getSimpleName());
        if (spec.pgjdbc() != null) {
            out.append(", ").append(spec.pgjdbc().iface().getName());
        }
        out.append(" {\n\n");
        out.append("    ")
                .append(spec.finalField() ? "final " : "")
                .append(spec.iface().getSimpleName())
                .append(' ')
                .append(spec.field())
                .append(";\n\n");
        out.append("    ")
                .append(spec.name())
                .append('(')
                .append(spec.constructorParameters())
                .append(") {\n");
        if (spec.superCall() != null) {
            out.append("        ").append(spec.superCall()).append('\n');
        }
        out.append("        this.").append(spec.field()).append(" = delegate;\n    }\n");
        if (spec.pgjdbc() != null) {
            out.append("\n    /** pgjdbc's own object underneath (the calls of {@code ")
                    .append(spec.pgjdbc().iface().getSimpleName())
                    .append("} go to it). */\n");
            out.append("    abstract ")
                    .append(spec.pgjdbc().iface().getName())
                    .append(' ')
                    .append(spec.pgjdbc().accessor())
                    .append("();\n");
        }
        if (spec.wrapResultSets()) {
            out.append("\n    /** A result set the delegate returned, as the application receives it. */\n");
            out.append("    abstract ResultSet wrap(ResultSet resultSet) throws SQLException;\n");
        }
        for (Method method : methods(spec)) {
            out.append('\n');
            method(out, spec.field(), spec.wrapResultSets(), method);
        }
        if (spec.pgjdbc() != null) {
            for (Method method : sorted(Arrays.asList(spec.pgjdbc().iface().getMethods()))) {
                if (!Modifier.isStatic(method.getModifiers())) {
                    out.append('\n');
                    method(out, spec.pgjdbc().accessor() + "()", false, method);
                }
            }
        }
        out.append("}\n");
        return out.toString();
    }

    /** {@code text} as Javadoc lines of at most 110 characters. */
    private static void javadoc(StringBuilder out, String text) {
        StringBuilder line = new StringBuilder(" *");
        for (String word : text.split(" ")) {
            if (line.length() + 1 + word.length() > 110) {
                out.append(line).append('\n');
                line = new StringBuilder(" *");
            }
            line.append(' ').append(word);
        }
        out.append(line).append('\n');
    }

    private static List<Method> methods(Spec spec) {
        Map<String, Method> bySignature = new LinkedHashMap<>();
        List<Method> candidates = new ArrayList<>(Arrays.asList(
                spec.declaredOnly()
                        ? spec.iface().getDeclaredMethods()
                        : spec.iface().getMethods()));
        candidates.addAll(spec.extra());
        for (Method method : candidates) {
            if (Modifier.isStatic(method.getModifiers()) || !Modifier.isPublic(method.getModifiers())) {
                continue;
            }
            String signature = method.getName() + Arrays.toString(method.getParameterTypes());
            Method known = bySignature.get(signature);
            if (known == null || known.getReturnType().isAssignableFrom(method.getReturnType())) {
                bySignature.put(signature, method); // the most specific (covariant) return type
            }
        }
        return sorted(bySignature.values());
    }

    private static List<Method> sorted(java.util.Collection<Method> methods) {
        List<Method> list = new ArrayList<>(methods);
        list.sort(Comparator.comparing(Method::getName)
                .thenComparing(m ->
                        Arrays.stream(m.getParameterTypes()).map(Class::getName).collect(Collectors.joining(","))));
        return list;
    }

    private static void method(StringBuilder out, String target, boolean wrapResultSets, Method method) {
        out.append("    @Override\n    public ");
        TypeVariable<Method>[] variables = method.getTypeParameters();
        if (variables.length > 0) {
            out.append('<')
                    .append(Arrays.stream(variables).map(TypeVariable::getName).collect(Collectors.joining(", ")))
                    .append("> ");
        }
        out.append(type(method.getGenericReturnType()))
                .append(' ')
                .append(method.getName())
                .append('(');
        Type[] parameters = method.getGenericParameterTypes();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < parameters.length; i++) {
            names.add("p" + (i + 1));
            out.append(i > 0 ? ", " : "")
                    .append(type(parameters[i]))
                    .append(" p")
                    .append(i + 1);
        }
        out.append(')');
        Class<?>[] exceptions = method.getExceptionTypes();
        if (exceptions.length > 0) {
            out.append(" throws ")
                    .append(Arrays.stream(exceptions)
                            .map(DelegationSources::type)
                            .collect(Collectors.joining(", ")));
        }
        out.append(" {\n        ");
        String call = target + '.' + method.getName() + '(' + String.join(", ", names) + ')';
        if (method.getReturnType() == void.class) {
            out.append(call).append(';');
        } else if (wrapResultSets && method.getReturnType() == ResultSet.class) {
            out.append("return wrap(").append(call).append(");");
        } else {
            out.append("return ").append(call).append(';');
        }
        out.append("\n    }\n");
    }

    /** A type as the source writes it: java.lang and java.sql by simple name, everything else qualified. */
    private static String type(Type type) {
        if (type instanceof Class<?> c) {
            if (c.isArray()) {
                return type(c.getComponentType()) + "[]";
            }
            if (c.isPrimitive() || "java.lang".equals(c.getPackageName()) || "java.sql".equals(c.getPackageName())) {
                return c.getSimpleName();
            }
            return c.getName().replace('$', '.');
        }
        if (type instanceof ParameterizedType p) {
            return type(p.getRawType())
                    + '<'
                    + Arrays.stream(p.getActualTypeArguments())
                            .map(DelegationSources::type)
                            .collect(Collectors.joining(", "))
                    + '>';
        }
        if (type instanceof WildcardType w) {
            if (w.getLowerBounds().length > 0) {
                return "? super " + type(w.getLowerBounds()[0]);
            }
            Type upper = w.getUpperBounds()[0];
            return upper == Object.class ? "?" : "? extends " + type(upper);
        }
        if (type instanceof GenericArrayType g) {
            return type(g.getGenericComponentType()) + "[]";
        }
        if (type instanceof TypeVariable<?> v) {
            return v.getName();
        }
        throw new IllegalArgumentException("type not written: " + type);
    }

    private DelegationSources() {}
}
