package dev.turnstile.engine.db;

import org.hibernate.StatelessSession;

import java.sql.PreparedStatement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

/**
 * Deleting rows nobody needs any more, now and then and a bounded batch at a time, by the calls
 * that add such rows: request keys past their retention, audit rows past theirs, tree nodes that
 * nobody holds. No background thread to start or stop; about one call in {@code oneIn} sweeps, so
 * a table holds about what its retention keeps, and no sweep holds locks on a whole backlog.
 *
 * <p>Two round trips: the keys of up to {@code batch} rows matching {@code condition} that no other
 * transaction has locked, locked now ({@code FOR UPDATE SKIP LOCKED}), then a delete of each (one
 * JDBC batch). A sweep never waits for a row: one that did waited inside a
 * release for rows that lock requests held while those waited for the release's, and PostgreSQL
 * broke each such deadlock after a second (issue 16: 16 threads of one site did 60 pairs/s).
 */
public final class Sweep {
    private final String table;
    private final List<String> key;
    private final String condition;
    private final int oneIn;
    private final int batch;

    /** @param key the primary key's column, or its columns separated by commas */
    public Sweep(String table, String key, String condition, int oneIn, int batch) {
        this.table = table;
        this.key = List.of(key.split(",\\s*"));
        this.condition = condition;
        this.oneIn = oneIn;
        this.batch = batch;
    }

    /** Sweeps in {@code session} about one call in {@code oneIn}; returns the rows deleted. */
    public int nowAndThen(StatelessSession session, Map<String, Object> parameters) {
        return due() ? run(session, parameters) : 0;
    }

    /** Whether this call is one of the one in {@code oneIn} that sweeps, for a caller that sweeps in a transaction of its own. */
    public boolean due() {
        return ThreadLocalRandom.current().nextInt(oneIn) == 0;
    }

    /** One batch: at most {@code batch} rows matching the condition deleted. */
    public int run(StatelessSession session, Map<String, Object> parameters) {
        String columns = String.join(", ", key);
        var select = session.createNativeQuery("SELECT " + columns + " FROM " + table + " WHERE " + condition + " ORDER BY "
                + columns + " FETCH FIRST " + batch + " ROWS ONLY FOR UPDATE SKIP LOCKED", Object[].class);
        parameters.forEach(select::setParameter);
        List<Object[]> rows = select.getResultList();
        if (rows.isEmpty()) {
            return 0;
        }
        // Deleted by key, each on its own: rows this transaction holds, which still match. (A delete
        // of the keys IN a list was planned as a scan on a small MariaDB table, and waited at every
        // row another transaction had locked.)
        String delete = "DELETE FROM " + table + " WHERE " + key.stream().map(k -> k + " = ?").collect(Collectors.joining(" AND "));
        session.doWork(c -> {
            try (PreparedStatement d = c.prepareStatement(delete)) {
                for (Object[] row : rows) {
                    for (int i = 0; i < row.length; i++) {
                        d.setObject(i + 1, row[i]);
                    }
                    d.addBatch();
                }
                d.executeBatch();
            }
        });
        return rows.size();
    }
}
