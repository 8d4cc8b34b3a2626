package dev.turnstile.engine.editlock;

import dev.turnstile.api.Article;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EditLock;
import dev.turnstile.api.EditLockConfig;
import dev.turnstile.api.EditLockResult;
import dev.turnstile.api.EditResource;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.SaveResult;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Edit locks on two nodes of a Galera cluster, where {@code SELECT … FOR UPDATE} locks only on the
 * node that runs it and certification compares only the rows transactions write. Two engines of
 * their own (own pools, own nodes) race an article save that changes paragraph 2 against a
 * request for paragraph 2: on one server they take turns on the article row, so either the
 * paragraph is granted on the saved text or the save is refused for the lock. Both going through
 * with the lock granted on the text before the save would let the paragraph's holder overwrite
 * that edit without ever seeing it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GaleraEditLockTest {
    private static final String WIKI = "wiki";
    private static final int ROUNDS = 60;
    private ContentEngine node1;
    private ContentEngine node2;

    @BeforeAll
    void open() {
        node1 = ContentEngine.open(config(1));
        node2 = ContentEngine.open(config(2));
    }

    private static EngineConfig config(int node) {
        return EngineConfig.from(TestDatabases.galera(node))
                .editLockType(WIKI, new EditLockConfig(Duration.ofMinutes(2), Duration.ofHours(1), true, List.of("p"), 3))
                .build();
    }

    @AfterAll
    void close() {
        node1.close();
        node2.close();
    }

    @Test
    void anArticleSaveOnOneNode_andAParagraphRequestOnAnother_takeTurns() throws Exception {
        String run = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<String> violations = new ArrayList<>();
        int bothWent = 0;
        try {
            for (int round = 0; round < ROUNDS; round++) {
                String id = "g" + run + "r" + round;
                String editorA = "A-" + id;
                String editorB = "B-" + id;
                Article created = node1.editLocks().createArticle("editor", WIKI, id,
                        "<p>One.</p><p>Two.</p><p>Three.</p>");
                EditResource article = EditResource.article(WIKI, id);
                String p2 = created.paragraphs().get(1).id();
                EditLock a = node1.editLocks().acquire(editorA, article).lock();
                Article loaded = node1.editLocks().article(article);
                String changed = loaded.html().replace(loaded.paragraphs().get(1).html(), "<p data-pid=\"" + p2 + "\">Two, by A.</p>");
                CyclicBarrier together = new CyclicBarrier(2);
                Future<SaveResult> save = pool.submit(() -> {
                    together.await(1, TimeUnit.MINUTES);
                    return node1.editLocks().save(editorA, a.lockId(), changed, loaded.usn());
                });
                Future<EditLockResult> request = pool.submit(() -> {
                    together.await(1, TimeUnit.MINUTES);
                    return node2.editLocks().acquire(editorB, EditResource.paragraph(WIKI, id, p2));
                });
                SaveResult saved = save.get(1, TimeUnit.MINUTES);
                EditLockResult granted = request.get(1, TimeUnit.MINUTES);
                if (saved.saved() && granted.lock() != null) {
                    bothWent++;
                    long grantedOn = articleUsnOf(granted.lock().lockId());
                    if (grantedOn < saved.usn()) {
                        violations.add("round " + round + ": paragraph 2 granted to B on USN " + grantedOn
                                + " while A's save that changed it made USN " + saved.usn());
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(violations).as("rounds where both went through (%d of %d)", bothWent, ROUNDS).isEmpty();
    }

    /** The article USN an edit lock was granted on, read around the engine on node 1 (waiting for the cluster). */
    private static long articleUsnOf(String lockId) throws Exception {
        EngineConfig c = TestDatabases.galera(1);
        try (Connection connection = DriverManager.getConnection(c.jdbcUrl(), c.username(), c.password());
             PreparedStatement sync = connection.prepareStatement("SET SESSION wsrep_sync_wait = 1");
             PreparedStatement read = connection.prepareStatement("SELECT article_usn FROM ts_edit_lock WHERE lock_id = ?")) {
            sync.execute();
            read.setString(1, lockId);
            try (ResultSet rs = read.executeQuery()) {
                assertThat(rs.next()).as("lock %s is stored", lockId).isTrue();
                return rs.getLong(1);
            }
        }
    }
}
