package dev.turnstile.api;

/**
 * Counters of database work an engine has done since it opened: committed or rolled-back
 * transactions, and SQL statements by kind. Take a snapshot before and after and use
 * {@link #since(EngineStatistics)} to count the round trips of an operation.
 *
 * @param transactions transactions committed or rolled back by a round trip of their own (a lock or
 *                     unlock that commits itself, in autocommit, is none)
 * @param statements SQL statements of every kind
 * @param selects SELECT statements
 * @param inserts INSERT statements
 * @param updates UPDATE statements
 * @param deletes DELETE statements
 * @param conflicts transactions the database aborted for a conflicting one (a deadlock, a failed
 *                  serialization, Galera's certification), which the engine ran again: logged nowhere
 */
public record EngineStatistics(long transactions, long statements, long selects, long inserts, long updates,
                               long deletes, long conflicts) {

    /** Database work with no conflict: what a test expects of an operation run alone. */
    public EngineStatistics(long transactions, long statements, long selects, long inserts, long updates, long deletes) {
        this(transactions, statements, selects, inserts, updates, deletes, 0);
    }

    /** The work done between {@code earlier} and this snapshot. */
    public EngineStatistics since(EngineStatistics earlier) {
        return new EngineStatistics(transactions - earlier.transactions, statements - earlier.statements,
                selects - earlier.selects, inserts - earlier.inserts, updates - earlier.updates,
                deletes - earlier.deletes, conflicts - earlier.conflicts);
    }
}
