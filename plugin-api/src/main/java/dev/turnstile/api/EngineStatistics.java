package dev.turnstile.api;

/**
 * Counters of database work an engine has done since it opened: committed or rolled-back
 * transactions, and SQL statements by kind. Take a snapshot before and after and use
 * {@link #since(EngineStatistics)} to count the round trips of an operation.
 */
public record EngineStatistics(long transactions, long statements, long selects, long inserts, long updates,
                               long deletes) {

    public EngineStatistics since(EngineStatistics earlier) {
        return new EngineStatistics(transactions - earlier.transactions, statements - earlier.statements,
                selects - earlier.selects, inserts - earlier.inserts, updates - earlier.updates,
                deletes - earlier.deletes);
    }
}
