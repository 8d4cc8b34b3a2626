package dev.turnstile.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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

    /**
     * One increment of {@code row} in plain JDBC, and the value it wrote. On a Galera cluster a concurrent increment on another node
     * aborts this one at commit (a certification conflict, SQLSTATE 40001): it goes again, as any
     * application on Galera must; it committed nothing.
     */
    static long increment(Connection c, String table, int row) throws Exception {
        while (true) {
            try {
                return incrementOnce(c, table, row);
            } catch (SQLException e) {
                if (!"40001".equals(e.getSQLState())) {
                    throw e;
                }
                c.rollback();
            }
        }
    }

    /**
     * A read-modify-write of {@code row}: its value read, then that value + 1 written, committed — a
     * lost update unless the caller holds a lock that keeps every other such write out.
     */
    static void readThenWrite(Connection c, String table, int row) throws SQLException {
        try (PreparedStatement read = c.prepareStatement("SELECT n FROM " + table + " WHERE id = ?");
             PreparedStatement write = c.prepareStatement("UPDATE " + table + " SET n = ? WHERE id = ?")) {
            read.setInt(1, row);
            long n;
            try (ResultSet rs = read.executeQuery()) {
                rs.next();
                n = rs.getLong(1);
            }
            write.setLong(1, n + 1);
            write.setInt(2, row);
            write.executeUpdate();
            c.commit();
        }
    }

    /** The value of {@code row}. */
    long value(int row) throws SQLException {
        try (Connection c = database.connect(); PreparedStatement read = c.prepareStatement("SELECT n FROM " + name + " WHERE id = ?")) {
            read.setInt(1, row);
            try (ResultSet rs = read.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static long incrementOnce(Connection c, String table, int row) throws Exception {
        try (PreparedStatement up = c.prepareStatement("UPDATE " + table + " SET n = n + 1 WHERE id = ?");
             PreparedStatement read = c.prepareStatement("SELECT n FROM " + table + " WHERE id = ?")) {
            up.setInt(1, row);
            up.executeUpdate();
            read.setInt(1, row);
            try (ResultSet rs = read.executeQuery()) {
                rs.next();
                long n = rs.getLong(1);
                c.commit();
                return n;
            }
        }
    }
}
