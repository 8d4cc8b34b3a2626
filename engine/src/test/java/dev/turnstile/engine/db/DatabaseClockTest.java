package dev.turnstile.engine.db;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class DatabaseClockTest {
    /** A real H2 database, with a count of the connections taken from it. */
    private static DataSource counting(AtomicInteger borrowed) {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:clock;DB_CLOSE_DELAY=-1");
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        borrowed.incrementAndGet();
                    }
                    return method.invoke(h2, args);
                });
    }

    @Test
    void aThreadInsideATransaction_neverBorrowsASecondConnectionToReadTheClock() {
        AtomicInteger borrowed = new AtomicInteger();
        AtomicBoolean inTransaction = new AtomicBoolean(true);
        DatabaseClock clock = new DatabaseClock(counting(borrowed), "H2", () -> !inTransaction.get(), Duration.ZERO);
        assertThat(borrowed).as("the first reading at open").hasValue(1);

        Instant during = clock.instant();
        clock.instant();
        assertThat(borrowed).as("due for a resync, but the thread holds a connection").hasValue(1);
        assertThat(Duration.between(Instant.now(), during).abs()).isLessThan(Duration.ofSeconds(5));

        inTransaction.set(false);
        clock.instant();
        assertThat(borrowed).as("outside a transaction it resyncs").hasValue(2);
    }

    @Test
    void readingsFollowTheMonotonicTicker_neverTheWallClock_andNeverGoBackwards() {
        AtomicLong ticker = new AtomicLong(5_000_000_000L);
        AtomicBoolean mayResync = new AtomicBoolean(false);
        DatabaseClock clock = new DatabaseClock(counting(new AtomicInteger()), "H2", mayResync::get, Duration.ofSeconds(30),
                ticker::get);
        Instant first = clock.instant();
        assertThat(clock.instant()).as("the ticker did not move: neither does the clock").isEqualTo(first);

        ticker.addAndGet(Duration.ofMinutes(10).toNanos());
        assertThat(clock.instant()).as("ten monotonic minutes later, whatever the wall clock says")
                .isEqualTo(first.plus(Duration.ofMinutes(10)));

        mayResync.set(true); // the database says it is ten minutes earlier than the ticker carried us to
        Instant afterResync = clock.instant();
        assertThat(afterResync).as("a resync never moves the clock back").isEqualTo(first.plus(Duration.ofMinutes(10)));
        assertThat(Duration.between(Instant.now(), clock.instant().minus(Duration.ofMinutes(10))).abs())
                .isLessThan(Duration.ofSeconds(5));
        mayResync.set(false);
        ticker.addAndGet(Duration.ofMinutes(11).toNanos());
        assertThat(clock.instant()).as("it moves on from the database's reading once that passes the last one")
                .isAfter(afterResync);
    }
}
