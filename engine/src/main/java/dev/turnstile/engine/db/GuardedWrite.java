package dev.turnstile.engine.db;

import org.hibernate.StatelessSession;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The conditional write every capability settles its races with: "change this row if it is still
 * as I saw it (its USN), or still free, mine or lapsed", as one UPDATE or DELETE whose WHERE clause
 * the database evaluates against the latest committed row. The first writer wins; a loser touches
 * nothing and learns it from the row count. Every UPDATE also moves the row's USN on by one, so
 * any writer that read the row can guard on it. Built by {@link #of} or by a {@link Lease}.
 */
public final class GuardedWrite {
    private final String table;
    private final List<String> assignments = new ArrayList<>();
    private final List<Parameter> assigned = new ArrayList<>();
    private final List<String> conditions = new ArrayList<>();
    private final List<Parameter> conditioned = new ArrayList<>();
    private Notifications notifications;
    private String notifyChannel;
    private String notifyTopic;
    private String notifyPayload;
    private int processesNotified;

    /** A parameter of the statement (its {@code ?}s in order), and the type that says what its null is. */
    public record Parameter(Object value, Class<?> type) {
        /** Binds it to the {@code index}th {@code ?}, as Hibernate binds its type ({@link Jdbc#bind}). */
        void bind(StatelessSession session, PreparedStatement statement, int index) throws SQLException {
            Jdbc.bind(session, statement, index, value, type);
        }
    }

    private GuardedWrite(String table, String keyColumn, Object key) {
        this.table = table;
        conditions.add(keyColumn + " = ?");
        conditioned.add(new Parameter(key, key.getClass()));
    }

    /** A write of the row of {@code table} whose {@code keyColumn} is {@code key}. */
    public static GuardedWrite of(String table, String keyColumn, Object key) {
        return new GuardedWrite(table, keyColumn, key);
    }

    /** Sets a column; {@code type} says what a null is (drivers need it). */
    public GuardedWrite set(String column, Object value, Class<?> type) {
        assignments.add(column + " = ?");
        assigned.add(new Parameter(value, type));
        return this;
    }

    public GuardedWrite set(String column, Object value) {
        return set(column, value, value.getClass());
    }

    /** Only if the row's USN is still {@code usn}: nobody wrote it since the caller read it. */
    public GuardedWrite ifUsn(long usn) {
        return where("usn = ?", usn);
    }

    /**
     * Only if {@code condition} holds; each {@code ?} in it is bound, in order, to one of
     * {@code values}. Several conditions must all hold.
     */
    public GuardedWrite where(String condition, Object... values) {
        long placeholders = condition.chars().filter(c -> c == '?').count();
        if (placeholders != values.length) {
            throw new IllegalArgumentException(values.length + " values for " + placeholders + " placeholders in " + condition);
        }
        for (Object value : values) {
            conditioned.add(new Parameter(value, value.getClass()));
        }
        conditions.add("(" + condition + ")");
        return this;
    }

    /**
     * Also tells other processes, on a database with notifications, {@code payload} on
     * {@code channel} if the row is written and one of them has said it has a waiter on
     * {@code topic} ({@link Waiting#announce}) — delivered when the transaction commits. Sent
     * by the same statement ({@code RETURNING pg_notify(…)}), so it costs no round trip.
     */
    public GuardedWrite notifying(Notifications notifications, String channel, String topic, String payload) {
        this.notifications = notifications;
        this.notifyChannel = channel;
        this.notifyTopic = topic;
        this.notifyPayload = payload;
        return this;
    }

    /** How many other processes with a waiter the statement run ({@link #notifying}) told; 0 if none. */
    public int processesNotified() {
        return processesNotified;
    }

    /** Runs the UPDATE (bumping the USN); true if the row was written. */
    public boolean update(StatelessSession session) {
        StringBuilder sql = new StringBuilder("UPDATE ").append(table).append(" SET ");
        for (String a : assignments) {
            sql.append(a).append(", ");
        }
        sql.append("usn = usn + 1");
        return run(session, sql);
    }

    /** Runs a DELETE of the row under the same conditions; true if it was deleted. */
    public boolean delete(StatelessSession session) {
        return run(session, new StringBuilder("DELETE FROM ").append(table));
    }

    private boolean run(StatelessSession session, StringBuilder sql) {
        sql.append(" WHERE ").append(String.join(" AND ", conditions));
        List<Parameter> parameters = new ArrayList<>(assigned); // as their ?s come: SET's, then WHERE's
        parameters.addAll(conditioned);
        if (notifications != null) {
            Notifications.Written written = notifications.executeAndNotify(session, sql.toString(), parameters, notifyChannel,
                    notifyTopic, notifyPayload);
            processesNotified = written.processesNotified();
            return written.rows() == 1;
        }
        return executeUpdate(session, sql.toString(), parameters) == 1;
    }

    /**
     * Runs a data-changing statement whose {@code ?}s are {@code parameters}, in order, by plain JDBC
     * ({@link Jdbc#run}); the rows it changed. A native query re-parsed the SQL and bound through
     * Hibernate's query machinery on every execution, for one statement whose rows it never maps.
     */
    static int executeUpdate(StatelessSession session, String sql, List<Parameter> parameters) {
        return Jdbc.run(session, sql, statement -> {
            for (int i = 0; i < parameters.size(); i++) {
                parameters.get(i).bind(session, statement, i + 1);
            }
            return statement.executeUpdate();
        });
    }
}
