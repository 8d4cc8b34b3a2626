package dev.turnstile.engine.db;

import org.hibernate.StatelessSession;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.type.BasicType;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Statements the engine runs by plain JDBC on a Hibernate session's connection: its hot writes and
 * its one-statement locks, whose rows Hibernate's query machinery parsed, bound and mapped afresh on
 * every execution — more CPU than the rest of a lock+unlock pair on a 2-core machine (issue 16,
 * item 5). Counted and bound as Hibernate's own statements are, so neither rule is stated twice.
 */
public final class Jdbc {
    private Jdbc() {
    }

    /** One statement's work on a {@link PreparedStatement}: bind, execute, read. */
    @FunctionalInterface
    public interface StatementWork<T> {
        T run(PreparedStatement statement) throws SQLException;
    }

    /**
     * Runs {@code sql} on the session's connection, counted in the engine's statistics by the session
     * factory's statement inspector, as Hibernate's statements are; a failure reaches the caller as
     * Hibernate's would.
     */
    public static <T> T run(StatelessSession session, String sql, StatementWork<T> work) {
        ((SharedSessionContractImplementor) session).getFactory().getSessionFactoryOptions().getStatementInspector().inspect(sql);
        return session.doReturningWork(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                return work.run(statement);
            }
        });
    }

    /**
     * Binds {@code value} to the {@code index}th {@code ?} as Hibernate binds a parameter of Java type
     * {@code type} (which says what a null is) on this database: its dialect's rules for an
     * {@code Instant} or a {@code UUID}, and the session's JDBC time zone.
     */
    public static void bind(StatelessSession session, PreparedStatement statement, int index, Object value, Class<?> type)
            throws SQLException {
        SharedSessionContractImplementor options = (SharedSessionContractImplementor) session;
        @SuppressWarnings("unchecked")
        BasicType<Object> basic = (BasicType<Object>) options.getTypeConfiguration().getBasicTypeForJavaType(type);
        basic.getJdbcValueBinder().bind(statement, value, index, options);
    }
}
