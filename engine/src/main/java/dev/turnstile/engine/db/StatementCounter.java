package dev.turnstile.engine.db;

import com.github.benmanes.caffeine.cache.Cache;
import dev.turnstile.api.EngineStatistics;
import org.hibernate.resource.jdbc.spi.StatementInspector;

import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts every SQL statement Hibernate prepares for one engine, by kind, and the transactions the
 * engine ran; the source of {@link EngineStatistics}. Statements the engine runs outside Hibernate
 * (the clock reading) are deliberately not counted: they are not part of any operation.
 */
final class StatementCounter implements StatementInspector {
    private static final long serialVersionUID = 1L;

    private final LongAdder transactions = new LongAdder();
    private final LongAdder statements = new LongAdder();
    private final LongAdder selects = new LongAdder();
    private final LongAdder inserts = new LongAdder();
    private final LongAdder updates = new LongAdder();
    private final LongAdder deletes = new LongAdder();
    private final LongAdder conflicts = new LongAdder();
    /**
     * The kind of each statement text seen: the engine runs a few dozen texts over and over, and
     * lower-casing a 2 kB statement on every run was a tenth of a dispenser caller's CPU (JFR, 4
     * processes taking in one statement each).
     */
    private final Cache<String, String> verbs = Caches.builder().maximumSize(1_000).build();

    @Override
    public String inspect(String sql) {
        statements.increment();
        switch (verbs.get(sql, StatementCounter::verbOf)) {
            case "select" -> selects.increment();
            case "insert" -> inserts.increment();
            case "update" -> updates.increment();
            case "delete" -> deletes.increment();
            default -> { }
        }
        return sql;
    }

    private static String verbOf(String sql) {
        String head = sql.stripLeading();
        int space = head.indexOf(' ');
        String verb = (space < 0 ? head : head.substring(0, space)).toLowerCase(Locale.ROOT);
        String lower = head.toLowerCase(Locale.ROOT);
        return verb.equals("with") || lower.contains(" final table (") ? writeIn(lower) : verb;
    }

    /**
     * A WITH statement, or a SELECT of the rows a write returns (H2's {@code FINAL TABLE (UPDATE …)}),
     * counts as the first write among its parts (a take and its register rows: an update), else a select.
     */
    private static String writeIn(String statement) {
        String first = "select";
        int at = Integer.MAX_VALUE;
        for (String verb : new String[] {"update", "insert", "delete"}) {
            int i = statement.indexOf(verb + " ");
            if (i >= 0 && i < at) {
                at = i;
                first = verb;
            }
        }
        return first;
    }

    void transactionEnded() {
        transactions.increment();
    }

    void conflictAborted() {
        conflicts.increment();
    }

    EngineStatistics snapshot() {
        return new EngineStatistics(transactions.sum(), statements.sum(), selects.sum(), inserts.sum(),
                updates.sum(), deletes.sum(), conflicts.sum());
    }
}
