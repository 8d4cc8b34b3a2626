package dev.turnstile.engine.editlock;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.editlock.Article;
import dev.turnstile.api.editlock.EditLock;
import dev.turnstile.api.editlock.EditLockConfig;
import dev.turnstile.api.editlock.EditLockResult;
import dev.turnstile.api.editlock.EditLocksConfig;
import dev.turnstile.api.editlock.EditResource;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Edit locks on two nodes of a Galera cluster, where {@code SELECT … FOR UPDATE} locks only on the
 * node that runs it, certification compares only the rows transactions write, and a node applies
 * another's commit a moment after it was answered. Two engines of their own (own pools, own nodes).
 * Two writer nodes on purpose, although the supported setup has one: these races show the engine
 * writes the row its transactions take turns on, so that certification sees their conflict (with a
 * read lock only, both went through 2 rounds in 60). Galera can still lose an acknowledged commit
 * between writer nodes (README, "A MariaDB Galera cluster"), which no round here has shown.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("galera")
class GaleraEditLockTest {
    private static final String WIKI = "wiki";
    private static final int ROUNDS = 60;
    private static final int BEHIND_ROUNDS = 5;
    /** Rows of each large transaction node 1 commits to keep node 2 behind. */
    private static final int BALLAST_ROWS = 100_000;
    private static final String BALLAST = "ts_test_galera_edit_lock_ballast";
    private ContentEngine node1;
    private ContentEngine node2;

    @BeforeAll
    void open() {
        node1 = ContentEngine.open(config(1));
        node2 = ContentEngine.open(config(2));
    }

    private static EngineConfig config(int node) {
        return EngineConfig.from(TestDatabases.galera(node))
                .editLocks(EditLocksConfig.builder().type(WIKI, new EditLockConfig(Duration.ofMinutes(2), Duration.ofHours(1), true, List.of("p"), 3)).build())
                .build();
    }

    @AfterAll
    void close() throws SQLException {
        node1.close();
        node2.close();
        try (Connection c = connect(1); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + BALLAST);
        }
    }

    private static Connection connect(int node) throws SQLException {
        EngineConfig config = TestDatabases.galera(node);
        return DriverManager.getConnection(config.jdbcUrl(), config.username(), config.password());
    }

    /**
     * One after the other, on two nodes: a lock granted on node 1 is there for a request on node 2
     * that comes after it (Galera applies another node's commit a moment after answering it; a read
     * that does not wait for the cluster sees the article without the lock).
     */
    @Test
    void aLockGrantedOnOneNode_refusesAParagraphRequestOnAnotherThatComesAfter() {
        String run = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        List<String> violations = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            String id = "s" + run + "r" + round;
            Article created = node1.session("editor").editLocks().createArticle(WIKI, id, "<p>One.</p><p>Two.</p><p>Three.</p>");
            node1.session("A-" + id).editLocks().tryLock(EditResource.article(WIKI, id)).granted().lock();
            EditLockResult b = node2.session("B-" + id).editLocks().tryLock(EditResource.paragraph(WIKI, id, created.paragraphs().get(1).id()));
            if (b.isGranted()) {
                violations.add("round " + round + ": paragraph 2 granted to B on node 2 after A's article lock on node 1");
            }
        }
        assertThat(violations).isEmpty();
    }

    /**
     * As above, while node 2 is behind: before each round node 1 commits, at once, as many large
     * transactions (rows of a table of this test) as node 2 has appliers, so node 2 applies the
     * article and its lock only after them, well after node 1 answered. A request whose transaction
     * begins with a write must wait for the cluster as a read does: Galera waits only before a
     * transaction's first statement, and with {@code wsrep_sync_wait = 1} only if that is a read.
     */
    @Test
    void aLockGrantedOnOneNode_refusesAParagraphRequestOnAnotherThatIsBehind() throws Exception {
        String run = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        List<String> violations = new ArrayList<>();
        try (Connection c = connect(1); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + BALLAST + " (id INT PRIMARY KEY, pad VARCHAR(20))");
            int appliers = appliersOf(2);
            ExecutorService pool = Executors.newFixedThreadPool(appliers);
            try {
                for (int round = 0; round < BEHIND_ROUNDS; round++) {
                    s.execute("TRUNCATE TABLE " + BALLAST);
                    commitTogether(pool, appliers);
                    String id = "b" + run + "r" + round;
                    Article created = node1.session("editor").editLocks().createArticle(WIKI, id, "<p>One.</p><p>Two.</p>");
                    node1.session("A-" + id).editLocks().tryLock(EditResource.article(WIKI, id)).granted().lock();
                    try {
                        EditLockResult b = node2.session("B-" + id).editLocks()
                                .tryLock(EditResource.paragraph(WIKI, id, created.paragraphs().get(1).id()));
                        if (b.isGranted()) {
                            violations.add("round " + round + ": paragraph 2 granted to B on node 2 after A's article lock on node 1");
                        }
                    } catch (EngineRuntimeException e) {
                        violations.add("round " + round + ": node 2 did not see node 1's article: " + e.getMessage());
                    }
                }
            } finally {
                pool.shutdownNow();
            }
        }
        assertThat(violations).isEmpty();
    }

    private static int appliersOf(int node) throws SQLException {
        try (Connection c = connect(node); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT @@GLOBAL.wsrep_slave_threads")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** {@code transactions} transactions of {@link #BALLAST_ROWS} rows each on node 1, committed at once. */
    private static void commitTogether(ExecutorService pool, int transactions) throws Exception {
        CyclicBarrier written = new CyclicBarrier(transactions);
        List<Future<?>> commits = new ArrayList<>();
        for (int k = 0; k < transactions; k++) {
            int first = k * BALLAST_ROWS;
            commits.add(pool.submit(() -> {
                try (Connection c = connect(1); Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    s.execute("INSERT INTO " + BALLAST + " SELECT " + first + " + seq, 'ballast' FROM seq_1_to_" + BALLAST_ROWS);
                    written.await(1, TimeUnit.MINUTES);
                    c.commit();
                }
                return null;
            }));
        }
        for (Future<?> commit : commits) {
            commit.get(2, TimeUnit.MINUTES);
        }
    }

    /**
     * At once, on two nodes: A asks for the article and saves it without paragraph 2, while B asks
     * for paragraph 2. On one server the three take turns on the article row, so B is refused, or
     * B is granted and A's lock or save is refused for B's lock. Both going through leaves B holding a lock
     * on a paragraph that is gone, whose edit it can never save.
     */
    @Test
    void anArticleLockAndSave_andAParagraphRequestOnAnotherNode_neverBothGoThrough() throws Exception {
        String run = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<String> violations = new ArrayList<>();
        try {
            for (int round = 0; round < ROUNDS; round++) {
                String id = "c" + run + "r" + round;
                Article created = node1.session("editor").editLocks().createArticle(WIKI, id, "<p>One.</p><p>Two.</p><p>Three.</p>");
                EditResource article = EditResource.article(WIKI, id);
                String without2 = created.html().replace(created.paragraphs().get(1).html(), "");
                CyclicBarrier together = new CyclicBarrier(2);
                Future<Boolean> save = pool.submit(() -> {
                    together.await(1, TimeUnit.MINUTES);
                    EditLockResult a = node1.session("A-" + id).editLocks().tryLock(article);
                    if (!a.isGranted()) {
                        return false; // B's paragraph lock came first: A may not lock the article
                    }
                    EditLock lock = a.granted().lock();
                    return node1.session("A-" + id).editLocks().save(lock.lockToken(), without2, created.usn()).saved();
                });
                Future<Boolean> request = pool.submit(() -> {
                    together.await(1, TimeUnit.MINUTES);
                    EditResource p2 = EditResource.paragraph(WIKI, id, created.paragraphs().get(1).id());
                    try {
                        return node2.session("B-" + id).editLocks().tryLock(p2).isGranted();
                    } catch (EngineRuntimeException e) {
                        // After A's save the paragraph is gone: the request names it as a bad value.
                        assertThat(e.getMessage()).endsWith("(the article " + article + " has no paragraph " + p2.paragraphId() + ")");
                        return false;
                    }
                });
                boolean saved = save.get(1, TimeUnit.MINUTES);
                if (request.get(1, TimeUnit.MINUTES) && saved) {
                    violations.add("round " + round + ": B holds paragraph 2, which A's save removed");
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(violations).isEmpty();
    }
}
