package dev.turnstile.engine.db;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A MariaDB Galera cluster under the engine. Galera settles the engine's races by certification
 * at commit (a loser is aborted and {@link Database#inTransaction} runs it again), but a node
 * applies another node's commit a moment after that node answered it: a read there may not see
 * it. Every engine connection therefore runs with {@code wsrep_sync_wait = 7}: before a statement
 * that begins a transaction (or runs alone), the node waits until it has applied what the cluster
 * committed before it — read your own writes through any node. Galera waits only before a
 * transaction's first statement and only for the kinds of statement the bits name (1 reads, 2
 * updates and deletes, 4 inserts); most engine transactions begin with a write (a turn or counter
 * row) and then read rows they do not write, so reads alone ({@code 1}) are not enough. A host's
 * pool must set it itself; the engine refuses to open without it.
 */
final class Galera {
    /** Reads, updates and deletes, inserts: whichever statement begins a transaction waits. */
    static final int WAIT_BEFORE_ANY_FIRST_STATEMENT = 1 | 2 | 4;
    /** The session variable an engine connection needs on Galera: transactions wait for the cluster. */
    private static final String CAUSAL_READS = "wsrep_sync_wait=" + WAIT_BEFORE_ANY_FIRST_STATEMENT;
    private static final String SESSION_VARIABLES = "sessionVariables=";

    private Galera() {
    }

    /**
     * {@code url} with the causal reads among its session variables ({@link #withSessionVariable}).
     * A URL that sets {@code wsrep_sync_wait} itself keeps its value, which {@link #checkCausalReads} checks.
     */
    static String withCausalReads(String url) {
        return withSessionVariable(url, "wsrep_sync_wait", Integer.toString(WAIT_BEFORE_ANY_FIRST_STATEMENT));
    }

    /**
     * A MariaDB {@code url} with {@code variable=value} among its session variables, which MariaDB
     * Connector/J sets on every session it opens; unchanged where the URL sets that variable itself.
     * Not a SET run when the pool opens a connection: when a node of a failover URL dies, the driver
     * moves the connection to the next node on a new session, where nothing the pool ran is set
     * (reads there missed commits other nodes had answered).
     */
    static String withSessionVariable(String url, String variable, String value) {
        String setting = variable + "=" + value;
        int query = url.indexOf('?');
        if (query < 0) {
            return url + "?" + SESSION_VARIABLES + setting;
        }
        String[] parameters = url.substring(query + 1).split("&");
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i].startsWith(SESSION_VARIABLES)) {
                if (parameters[i].contains(variable)) {
                    return url;
                }
                parameters[i] += "," + setting;
                return url.substring(0, query + 1) + String.join("&", parameters);
            }
        }
        return url + "&" + SESSION_VARIABLES + setting;
    }

    /** Whether {@code url} is a MariaDB or MySQL URL whose server is a Galera node with replication on. */
    static boolean isGaleraUrl(String url, String user, String password) {
        if (!url.startsWith("jdbc:mariadb:") && !url.startsWith("jdbc:mysql:")) {
            return false;
        }
        try (Connection c = DriverManager.getConnection(url, user, password)) {
            return isGalera(c);
        } catch (SQLException e) {
            return false; // the pool's own connection will report it, with the engine's message
        }
    }

    static boolean isGalera(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW VARIABLES LIKE 'wsrep_on'")) {
            return rs.next() && "ON".equalsIgnoreCase(rs.getString(2));
        }
    }

    /**
     * On a Galera node, refuses a pool whose connections begin transactions without waiting for the
     * cluster; answers whether the pool is on a Galera node.
     */
    static boolean checkCausalReads(DataSource dataSource, String productName, String where) {
        if (!Sql.isMariaDb(productName)) {
            return false;
        }
        try (Connection c = dataSource.getConnection()) {
            if (!isGalera(c)) {
                return false;
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@SESSION.wsrep_sync_wait")) {
                int wait = rs.next() ? rs.getInt(1) : 0;
                if ((wait & WAIT_BEFORE_ANY_FIRST_STATEMENT) != WAIT_BEFORE_ANY_FIRST_STATEMENT) {
                    throw EngineRuntimeException.of(ExceptionCode.E_CONFIG_INVALID, where + " is a Galera cluster node and"
                            + " its connections run with wsrep_sync_wait = " + wait + ": a transaction could miss a commit"
                            + " another node has already answered (Galera waits only before a transaction's first"
                            + " statement, and only if the setting names its kind). Set wsrep_sync_wait = "
                            + WAIT_BEFORE_ANY_FIRST_STATEMENT + " (reads, updates and deletes, inserts) on the pool's"
                            + " connections (with MariaDB Connector/J:"
                            + " sessionVariables=" + CAUSAL_READS + " in the URL).");
                }
            }
            return true;
        } catch (SQLException e) {
            throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE,
                    "Cannot read the Galera settings of " + where + ": " + e.getMessage(), e);
        }
    }
}
