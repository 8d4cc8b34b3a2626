package dev.turnstile.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/** The plain-JDBC baselines' table of counter rows {@code (id, n)}, made fresh for each run. */
final class CounterTable {
    private final BenchDatabase database;
    private final String name;
    private final AtomicInteger nextRow = new AtomicInteger();

    CounterTable(BenchDatabase database, String name) throws SQLException {
        this.database = database;
        this.name = name;
        try (Connection c = database.connect(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + name);
            s.execute("CREATE TABLE " + name + " (id INT PRIMARY KEY, n BIGINT NOT NULL)");
            c.commit();
        }
    }

    String name() {
        return name;
    }

    /** A new row with n = 0; returns its id. */
    int newRow() throws SQLException {
        int row = nextRow.incrementAndGet();
        try (Connection c = database.connect();
             PreparedStatement s = c.prepareStatement("INSERT INTO " + name + " (id, n) VALUES (?, 0)")) {
            s.setInt(1, row);
            s.executeUpdate();
            c.commit();
        }
        return row;
    }
}
