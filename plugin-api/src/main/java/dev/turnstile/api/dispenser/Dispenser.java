package dev.turnstile.api.dispenser;

import dev.turnstile.api.ExceptionCode;

import java.util.List;

/**
 * Hands out unique, gap-free, increasing numbers to every thread of every process sharing the
 * database. The counter is an object like any other (class {@value #CLASS_NAME}), saved with the
 * USN check; the strategy only decides how the increment reaches the database.
 */
public interface Dispenser {
    /** The class of dispenser objects. */
    String CLASS_NAME = "Dispenser";

    /** How many missing ranges {@link #report()} lists. */
    int REPORT_RANGES = 1_000;

    /** The most entries or ranges one page of {@link #register(long, int)} or {@link #report(long, int)} holds. */
    int MAX_PAGE = 10_000;

    /** The dispenser's name. */
    String name();

    /** Its configuration. */
    DispenserConfig config();

    /** The next number. */
    long next();

    /** {@code count} contiguous numbers; 1 ≤ count ≤ {@link DispenserConfig#maxBlock()}. */
    NumberBlock next(int count);

    /**
     * {@code count} numbers for a request its caller may send again — a workflow retrying a call that
     * timed out: the first call with {@code requestKey} takes them (and records the key with them,
     * in the same transaction); a repeat within {@link DispenserConfig#requestKeyRetention()} returns
     * that same block and takes nothing, so a retry is never a second number nor a gap. A repeat with
     * another count is refused ({@link ExceptionCode#E_BAD_VALUE}). The key is 1 to 128 printable
     * characters, scoped to this dispenser and to the session's user: the same key sent by another
     * user is another request (it takes its own numbers, never sees the first sender's). Whatever the strategy, such a call takes the counter row
     * lock (one transaction), so repeats of one key queue behind each other.
     */
    NumberBlock next(int count, String requestKey);

    /**
     * The next number, formatted by the dispenser's pattern (the plain number without one) with the
     * period and day it was taken in: a number taken on 31 December is formatted with that year.
     */
    String nextFormatted();

    /**
     * Formats {@code number} of {@code block} by the pattern, with the block's day (never the clock's
     * day now); a number outside the block is refused with {@link ExceptionCode#E_BAD_VALUE}.
     */
    String format(NumberBlock block, long number);

    /** Formats a number of the register by the pattern, with the day it was issued. */
    String format(IssuedNumber issued);

    /** The last number issued in the current period (start − 1 if none yet). One SELECT. */
    long current();

    /** Admin: the next number issued will be {@code next}; numbers skipped forward are voided in the register. */
    void setStart(long next);

    /** Admin: restarts the series at its start value. */
    void reset();

    /**
     * Numbers every new object of {@code className} in its {@code propertyName} (an Int64 or String
     * property) inside the transaction that creates it: a creation that rolls back consumes no number.
     * Installed for this engine; calling it again for the same class and property does nothing.
     */
    void numberOnCreate(String className, String propertyName);

    /**
     * The register of the current period, in number order (empty when the register is off); a
     * skipped range is one entry. Every entry at once: page a long series with {@link #register(long, int)}.
     */
    List<IssuedNumber> register();

    /** Up to {@code max} (1 to 10,000) entries of the current period's register, from the one holding {@code fromNumber} on. */
    List<IssuedNumber> register(long fromNumber, int max);

    /** Admin: marks an issued number void, with a reason; it stays in the register. */
    void voidNumber(long number, String reason);

    /**
     * Every number of the current period from start to {@link #current()}, accounted for: counts
     * computed by the database, and the first {@value #REPORT_RANGES} missing ranges.
     */
    RegisterReport report();

    /** As {@link #report()}, listing up to {@code maxRanges} (1 to 10,000) missing ranges that end at or after {@code fromNumber}. */
    RegisterReport report(long fromNumber, int maxRanges);

    /**
     * Every period the register holds numbers of, oldest first: {@code "2026"} for a yearly series,
     * {@code "2026-12"} monthly, {@code "2026-12-31"} daily, {@code ""} for a series that never resets.
     */
    List<String> periods();

    /**
     * As {@link #register(long, int)} for {@code period}: a closed one (last year, for an auditor) or
     * the current one. A period not begun yet, or not written as the series' reset writes it, is
     * refused with {@link ExceptionCode#E_BAD_VALUE}.
     */
    List<IssuedNumber> register(String period, long fromNumber, int max);

    /**
     * As {@link #report(long, int)} for {@code period}. A closed period is accounted from the start to
     * the highest number its register holds (every number issued is recorded in the transaction that
     * takes it, so none after that one was issued in it); the current period is {@link #report(long, int)}.
     */
    RegisterReport report(String period, long fromNumber, int maxRanges);
}
