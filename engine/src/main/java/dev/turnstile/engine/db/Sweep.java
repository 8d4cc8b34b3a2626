package dev.turnstile.engine.db;

import org.hibernate.StatelessSession;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Deleting rows nobody needs any more, now and then and a bounded batch at a time, by the calls
 * that add such rows: request keys past their retention, audit rows past theirs, tree nodes that
 * nobody holds. No background thread to start or stop; about one call in {@code oneIn} sweeps, so
 * a table holds about what its retention keeps, and no sweep holds locks on a whole backlog.
 *
 * <p>Two statements: the keys of up to {@code batch} rows matching {@code condition}, then a
 * delete of those keys that checks the condition again — a row that changed in between (a node
 * locked again, say) stays.
 */
public final class Sweep {
    private final String table;
    private final String key;
    private final String condition;
    private final int oneIn;
    private final int batch;

    public Sweep(String table, String key, String condition, int oneIn, int batch) {
        this.table = table;
        this.key = key;
        this.condition = condition;
        this.oneIn = oneIn;
        this.batch = batch;
    }

    /** Sweeps in {@code session} about one call in {@code oneIn}; returns the rows deleted. */
    public int nowAndThen(StatelessSession session, Map<String, Object> parameters) {
        return ThreadLocalRandom.current().nextInt(oneIn) == 0 ? run(session, parameters) : 0;
    }

    /** One batch: at most {@code batch} rows matching the condition deleted. */
    public int run(StatelessSession session, Map<String, Object> parameters) {
        var select = session.createNativeQuery("SELECT " + key + " FROM " + table + " WHERE " + condition, Object.class);
        parameters.forEach(select::setParameter);
        List<Object> keys = select.setMaxResults(batch).getResultList();
        if (keys.isEmpty()) {
            return 0;
        }
        var delete = session.createNativeMutationQuery("DELETE FROM " + table + " WHERE " + key + " IN (:sweepKeys) AND " + condition);
        parameters.forEach(delete::setParameter);
        return delete.setParameterList("sweepKeys", keys).executeUpdate();
    }
}
