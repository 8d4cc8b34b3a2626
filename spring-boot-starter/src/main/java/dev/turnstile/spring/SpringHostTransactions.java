package dev.turnstile.spring;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.spi.HostTransactions;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.TransactionTimedOutException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionSynchronizationUtils;

import java.sql.Connection;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * The Spring transaction active on the calling thread, as Turnstile joins it: the connection that
 * Spring's transaction manager bound for the engine's DataSource ({@code DataSourceTransactionManager},
 * or {@code JpaTransactionManager}, which exposes its JDBC connection). With no transaction active,
 * Turnstile runs its own for locks and reads, and refuses a number or a data write unless told to
 * allow it ({@link #outsideTransaction}). A transaction that holds no connection of that DataSource
 * (another data source's manager, JTA) is refused: Turnstile's work would commit on its own beside it.
 */
public final class SpringHostTransactions implements HostTransactions {
    private final DataSource dataSource;
    private final boolean allowOwnTransactions;

    /** Joining the application's transactions, and refusing a number or a data write outside one. */
    public SpringHostTransactions(DataSource dataSource) {
        this(dataSource, false);
    }

    /**
     * {@code allowOwnTransactions}: a number taken or an object's values written outside any Spring
     * transaction commit in a transaction of Turnstile's own ({@code turnstile.spring.allow-own-transactions}),
     * instead of being refused.
     */
    public SpringHostTransactions(DataSource dataSource, boolean allowOwnTransactions) {
        this.dataSource = dataSource;
        this.allowOwnTransactions = allowOwnTransactions;
    }

    @Override
    public Optional<Connection> current() {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return Optional.empty();
        }
        Object bound = TransactionSynchronizationManager.getResource(TransactionSynchronizationUtils.unwrapResourceIfNecessary(dataSource));
        if (bound instanceof ConnectionHolder holder) {
            return Optional.of(holder.getConnection());
        }
        throw EngineRuntimeException.of(ExceptionCode.E_HOST_TRANSACTION, "A Spring transaction is active on this thread ("
                + TransactionSynchronizationManager.getCurrentTransactionName() + ") but holds no connection of the DataSource"
                + " Turnstile runs on: it is another data source's or a JTA transaction, which Turnstile cannot join. Run"
                + " the call in a transaction of that DataSource's transaction manager, or outside any transaction.");
    }

    /**
     * A number or a data write with no Spring transaction active: refused unless own transactions are
     * allowed — it would commit on its own, and a row the application then fails to write leaves a
     * number with no invoice. Usually a missing {@code @Transactional}, a call from the same class
     * (which bypasses Spring's proxy), or {@code SUPPORTS}/{@code NOT_SUPPORTED}.
     */
    @Override
    public void outsideTransaction(String what) {
        if (!allowOwnTransactions) {
            throw EngineRuntimeException.of(ExceptionCode.E_HOST_TRANSACTION, what + " on thread " + Thread.currentThread().getName()
                    + " outside any Spring transaction: Turnstile would commit it on its own, and if what the application"
                    + " writes next fails, it stays (a number with no invoice). Run it in a transaction —"
                    + " @Transactional on the calling method, called through its Spring proxy (not from the same class) —"
                    + " or set turnstile.spring.allow-own-transactions=true to let Turnstile commit such calls itself.");
        }
    }

    /** The time left of the transaction's timeout ({@code @Transactional(timeout = …)}), if it has one. */
    @Override
    public Optional<Duration> timeLeft() {
        if (!TransactionSynchronizationManager.isActualTransactionActive()
                || !(TransactionSynchronizationManager.getResource(TransactionSynchronizationUtils.unwrapResourceIfNecessary(dataSource))
                instanceof ConnectionHolder holder) || !holder.hasTimeout()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Duration.ofMillis(holder.getTimeToLiveInMillis()));
        } catch (TransactionTimedOutException ranOut) {
            return Optional.of(Duration.ZERO);
        }
    }

    @Override
    public boolean onCompletion(Consumer<Boolean> action) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            return false;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCompletion(int status) {
                action.accept(status == STATUS_COMMITTED);
            }
        });
        return true;
    }
}
