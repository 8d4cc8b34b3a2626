package dev.turnstile.engine.db;

import org.hibernate.StatelessSession;
import org.hibernate.query.CommonQueryContract;

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
    private final List<String> conditions = new ArrayList<>();
    private final List<Parameter> parameters = new ArrayList<>();
    private Notifications notifications;
    private String notifyChannel;
    private String notifyTopic;
    private String notifyPayload;
    private int processesNotified;

    /** A named parameter of the statement, and the type that says what its null is. */
    public record Parameter(String name, Object value, Class<?> type) {
        @SuppressWarnings({"unchecked", "rawtypes"})
        void bind(CommonQueryContract query) {
            query.setParameter(name, value, (Class) type);
        }
    }

    private GuardedWrite(String table, String keyColumn, Object key) {
        this.table = table;
        conditions.add(keyColumn + " = :k");
        parameters.add(new Parameter("k", key, key.getClass()));
    }

    /** A write of the row of {@code table} whose {@code keyColumn} is {@code key}. */
    public static GuardedWrite of(String table, String keyColumn, Object key) {
        return new GuardedWrite(table, keyColumn, key);
    }

    /** Sets a column; {@code type} says what a null is (drivers need it). */
    public GuardedWrite set(String column, Object value, Class<?> type) {
        String p = "p" + parameters.size();
        assignments.add(column + " = :" + p);
        parameters.add(new Parameter(p, value, type));
        return this;
    }

    public GuardedWrite set(String column, Object value) {
        return set(column, value, value.getClass());
    }

    /** Only if the row's USN is still {@code usn}: nobody wrote it since the caller read it. */
    public GuardedWrite ifUsn(long usn) {
        return where("usn = :?", usn);
    }

    /**
     * Only if {@code condition} holds; each {@code :?} in it is bound, in order, to one of
     * {@code values}. Several conditions must all hold.
     */
    public GuardedWrite where(String condition, Object... values) {
        StringBuilder sql = new StringBuilder();
        int next = 0;
        for (int at = 0; at < condition.length(); at++) {
            if (condition.startsWith(":?", at)) {
                String p = "p" + parameters.size();
                Object value = values[next++];
                parameters.add(new Parameter(p, value, value.getClass()));
                sql.append(':').append(p);
                at++;
            } else {
                sql.append(condition.charAt(at));
            }
        }
        if (next != values.length) {
            throw new IllegalArgumentException(values.length + " values for " + next + " placeholders in " + condition);
        }
        conditions.add("(" + sql + ")");
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
        if (notifications != null) {
            Notifications.Written written = notifications.executeAndNotify(session, sql.toString(), parameters, notifyChannel,
                    notifyTopic, notifyPayload);
            processesNotified = written.processesNotified();
            return written.rows() == 1;
        }
        return executeUpdate(session, sql.toString(), parameters) == 1;
    }

    /** Runs a data-changing statement whose named parameters are {@code parameters}; the rows it changed. */
    static int executeUpdate(StatelessSession session, String sql, List<Parameter> parameters) {
        var query = session.createNativeMutationQuery(sql);
        parameters.forEach(p -> p.bind(query));
        return query.executeUpdate();
    }
}
