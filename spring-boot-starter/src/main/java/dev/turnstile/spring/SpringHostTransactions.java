package dev.turnstile.spring;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.spi.HostTransactions;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionSynchronizationUtils;

import java.sql.Connection;
import java.util.Optional;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * The Spring transaction active on the calling thread, as Turnstile joins it: the connection that
 * Spring's transaction manager bound for the engine's DataSource ({@code DataSourceTransactionManager},
 * or {@code JpaTransactionManager}, which exposes its JDBC connection). With no transaction active,
 * Turnstile runs its own. A transaction that holds no connection of that DataSource (another data
 * source's manager, JTA) is refused: Turnstile's work would commit on its own beside it.
 */
public final class SpringHostTransactions implements HostTransactions {
    private final DataSource dataSource;

    public SpringHostTransactions(DataSource dataSource) {
        this.dataSource = dataSource;
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
