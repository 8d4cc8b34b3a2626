package dev.turnstile.engine.dispenser;

import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.NumberBlock;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.Jdbc;
import dev.turnstile.engine.objects.ObjectStoreServices;

import java.sql.ResultSet;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;

/**
 * A take under the row lock as one statement that commits itself, on PostgreSQL: {@link Series#take}
 * and {@link Series#settle} (the period by the engine's time, never earlier than the row's last
 * write) and {@link Register#record} in SQL, on the counter row as the statement finds it once its
 * row lock is granted. Waiters queue on the row lock and none fails; the lock is held for that
 * statement and its commit only, where a read FOR UPDATE, an UPDATE and a COMMIT held it for three
 * round trips and the object layer between them (issue 16, item 2). The row's USN still moves, so
 * first-writer-wins holders elsewhere see the take.
 *
 * <p>Every value is computed from the row the UPDATE locks ({@code o}) and the parameters, never from
 * another read of the table: after waiting for another take's commit, PostgreSQL evaluates the SET
 * list again on the row that take wrote, but would not read a subquery of the table again.
 */
final class PostgresDispenserStatements extends DispenserStatements {
    private final ObjectStoreServices objects;
    private final Database database;

    PostgresDispenserStatements(ObjectStoreServices objects, Database database) {
        this.objects = objects;
        this.database = database;
    }

    @Override
    NumberBlock take(UUID id, String name, int count, String user) {
        List<String> issuers = Register.issuers(count, user);
        return objects.aloneUnrecorded(() -> "taking " + count + " number(s) from dispenser " + name, session ->
                Jdbc.run(session, TAKE, statement -> {
                    statement.setString(1, user);
                    statement.setObject(2, database.now().atOffset(ZoneOffset.UTC));
                    statement.setInt(3, count);
                    statement.setObject(4, id);
                    statement.setString(5, Dispenser.CLASS_NAME);
                    statement.setArray(6, statement.getConnection().createArrayOf("varchar", issuers.toArray()));
                    statement.setBoolean(7, Register.inDoubt());
                    try (ResultSet rs = statement.executeQuery()) {
                        if (!rs.next()) {
                            return null;
                        }
                        Instant at = rs.getObject("at", OffsetDateTime.class).toInstant();
                        return Series.taken(rs.getLong("counter"), rs.getString("period"), count, at);
                    }
                }));
    }

    /**
     * The row's values as JSON, and the time of this write: the engine's time when the statement was
     * sent plus the time the statement has run (the wait for the row lock), as a transaction reads
     * the time once the row is locked; never before the row's last write.
     */
    private static final String V = "o.prop_values::jsonb";
    private static final String AT = "GREATEST(p.now + (clock_timestamp() - statement_timestamp()), o.date_last_modified)";
    /** The period key of the write's time, by the row's reset rule (Series.periodKey). */
    private static final String BY_CLOCK = "(CASE " + V + "->>'ResetPeriod'"
            + " WHEN 'YEARLY' THEN to_char(" + AT + " AT TIME ZONE 'UTC', 'YYYY')"
            + " WHEN 'MONTHLY' THEN to_char(" + AT + " AT TIME ZONE 'UTC', 'YYYY-MM')"
            + " WHEN 'DAILY' THEN to_char(" + AT + " AT TIME ZONE 'UTC', 'YYYY-MM-DD') ELSE '' END)";
    /** A later period restarts the series at its start value; a period never goes back (Series.settle). */
    private static final String COUNTER = "(CASE WHEN " + BY_CLOCK + " > " + V + "->>'Period'"
            + " THEN (" + V + "->>'StartValue')::bigint - 1 ELSE (" + V + "->>'Counter')::bigint END + p.n)";
    private static final String PERIOD = "GREATEST(" + BY_CLOCK + ", " + V + "->>'Period')";

    /**
     * The parameters as a one-row relation {@code p} (each bound once), the UPDATE, and the register's
     * rows, one per number, if the row says it keeps a register.
     */
    private static final String TAKE = ("""
            WITH p AS (SELECT CAST(? AS varchar) AS usr, CAST(? AS timestamptz) AS now, CAST(? AS int) AS n,
                CAST(? AS uuid) AS id, CAST(? AS varchar) AS cls, CAST(? AS varchar[]) AS issuers,
                CAST(? AS boolean) AS in_doubt),
            taken AS (
              UPDATE ts_object o SET usn = o.usn + 1, last_modifier = p.usr, date_last_modified = %s,
                prop_values = ((%s - 'AdminAction') || jsonb_build_object('Counter', %s, 'Period', %s))::text
              FROM p WHERE o.id = p.id AND o.class_name = p.cls
              RETURNING (o.prop_values::jsonb->>'Counter')::bigint AS counter, o.prop_values::jsonb->>'Period' AS period,
                o.prop_values::jsonb->>'DispenserName' AS name,
                COALESCE((o.prop_values::jsonb->>'RegisterIssued')::boolean, false) AS register, o.date_last_modified AS at),
            issued AS (
              INSERT INTO ts_dispenser_issue (dispenser, period, number, issued_by, issued_at, in_doubt)
              SELECT t.name, t.period, t.counter - p.n + u.n, u.who, t.at, p.in_doubt
              FROM taken t, p, unnest(p.issuers) WITH ORDINALITY AS u(who, n) WHERE t.register)
            SELECT counter, period, at FROM taken""").formatted(AT, V, COUNTER, PERIOD);
}
