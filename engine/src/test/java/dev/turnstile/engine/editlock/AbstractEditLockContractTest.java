package dev.turnstile.engine.editlock;

import dev.turnstile.api.Article;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EditLock;
import dev.turnstile.api.EditLockConfig;
import dev.turnstile.api.EditLockResult;
import dev.turnstile.api.EditLocks;
import dev.turnstile.api.EditResource;
import dev.turnstile.api.EditStatus;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.Paragraph;
import dev.turnstile.api.SaveResult;
import dev.turnstile.engine.MutableClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.turnstile.engine.Failures.failure;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The edit-lock paper's nine test cases with its settings (heartbeat 2 min, timeout 1 h) on an
 * injected clock, then races, the per-user limit, saving under a lock, paragraph ids and bad
 * input — on every database. Each test edits its own article.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractEditLockContractTest {
    static final String WIKI = "wiki";
    private final MutableClock clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.MICROS));
    private ContentEngine engine;
    private EditLocks locks;
    private EditResource article;
    private List<Paragraph> paragraphs;
    /** Editors of this test: fresh names, so locks left by earlier tests or runs never count against them. */
    private String editorA;
    private String editorB;
    private String editorC;

    protected abstract EngineConfig config();

    @BeforeAll
    void open() {
        engine = ContentEngine.open(EngineConfig.from(config()).clock(clock)
                .editLockType(WIKI, new EditLockConfig(Duration.ofMinutes(2), Duration.ofHours(1), true, List.of("p", "pre"), 3))
                .build());
        locks = engine.editLocks();
    }

    @AfterAll
    void close() {
        engine.close();
    }

    @BeforeEach
    void newArticle() {
        String id = "a" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        editorA = "A-" + id;
        editorB = "B-" + id;
        editorC = "C-" + id;
        Article a = locks.createArticle("editor", WIKI, id, "<h1>Cities</h1><p>Beijing is a city.</p><p>Shanghai too.</p>"
                + "<pre>code</pre><p>The end.</p>");
        article = EditResource.article(WIKI, id);
        paragraphs = a.paragraphs();
    }

    /** Every lock of the test lapses: the clock moves past the timeout (it only ever moves forward). */
    @org.junit.jupiter.api.AfterEach
    void everyLockLapses() {
        clock.advance(Duration.ofHours(2));
    }

    private EditResource paragraph(int n) {
        return EditResource.paragraph(WIKI, article.articleId(), paragraphs.get(n - 1).id());
    }

    private void assertRefused(EditLockResult r, String holder) {
        assertThat(r.isGranted()).isFalse();
        assertThat(r.holder()).isEqualTo(holder);
        assertThat(r.reason()).contains(holder);
    }

    @Test
    void articleObjects_changeOnlyThroughTheEditLockService() {
        UUID id = DefaultEditLocks.idOf(article);
        var os = engine.session(editorB).objectStore();
        var around = os.fetchCustomObject("EditableArticle", id, dev.turnstile.api.PropertyFilter.ALL);
        around.getProperties().putValue("Html", "<p>vandal</p>");
        EngineRuntimeException e = failure(() -> around.save(dev.turnstile.api.RefreshMode.REFRESH));
        assertThat(e).hasMessage("E_ACCESS_DENIED: " + editorB + " may not save EditableArticle {" + id + "}: objects of the"
                + " engine's class EditableArticle change only through the edit lock service (engine.editLocks())");
        assertThat(locks.article(article).html()).doesNotContain("vandal");
    }

    @Test
    void case1_aEditsAndSavesBeijing() {
        EditLock a = locks.acquire(editorA, article).lock();
        Article loaded = locks.article(article);
        SaveResult saved = locks.save(editorA, a.lockId(), loaded.html().replace("Beijing is a city.", "Beijing"), loaded.usn());
        assertThat(saved.saved()).isTrue();
        assertThat(locks.article(article).html()).contains(">Beijing</p>");
        locks.release(editorA, a.lockId());
        assertThat(locks.status(article).articleLock()).isNull();
    }

    @Test
    void case2_bAsksWhileAEdits_refusedNamingAAndSince() {
        EditLock a = locks.acquire(editorA, article).lock();
        EditLockResult b = locks.acquire(editorB, article);
        assertRefused(b, editorA);
        assertThat(b.holderSince()).isEqualTo(a.startTime());
    }

    @Test
    void case3_aHasEditedFiveMinutes_bRefused() {
        EditLock a = locks.acquire(editorA, article).lock();
        for (int i = 0; i < 5; i++) {
            clock.advance(Duration.ofMinutes(1));
            locks.heartbeat(editorA, a.lockId());
        }
        assertRefused(locks.acquire(editorB, article), editorA);
    }

    @Test
    void case4_aClosedTheBrowser_bWithinTwoMinutes_refused() {
        locks.acquire(editorA, article).lock();
        clock.advance(Duration.ofMinutes(2)); // exactly the heartbeat: still valid
        assertRefused(locks.acquire(editorB, article), editorA);
    }

    @Test
    void case5_aClosedTheBrowser_bAfterTheHeartbeatLapsed_granted() {
        EditLock a = locks.acquire(editorA, article).lock();
        clock.advance(Duration.ofMinutes(2).plusMillis(1));
        EditLockResult b = locks.acquire(editorB, article);
        assertThat(b.isGranted()).isTrue();
        assertThat(b.lock().userId()).isEqualTo(editorB);
        assertThat(failure(() -> locks.heartbeat(editorA, a.lockId())).getExceptionCode()).isEqualTo(ExceptionCode.E_LEASE_LAPSED);
    }

    @Test
    void case6_aEditsOverAnHour_lockLapses_bTakesIt_aSaveRefusedWithTextReturned() {
        EditLock a = locks.acquire(editorA, article).lock();
        Article loaded = locks.article(article);
        for (int i = 0; i < 60; i++) { // heartbeats every minute for an hour
            clock.advance(Duration.ofMinutes(1));
            locks.heartbeat(editorA, a.lockId());
        }
        clock.advance(Duration.ofSeconds(1));
        EngineRuntimeException lapsed = failure(() -> locks.heartbeat(editorA, a.lockId()));
        assertThat(lapsed.getExceptionCode()).isEqualTo(ExceptionCode.E_LEASE_LAPSED);
        assertThat(locks.acquire(editorB, article).isGranted()).isTrue();
        String typed = loaded.html().replace("Beijing is a city.", "Beijing, typed for an hour");
        SaveResult refused = locks.save(editorA, a.lockId(), typed, loaded.usn());
        assertThat(refused.saved()).isFalse();
        assertThat(refused.text()).isEqualTo(typed);
        assertThat(refused.reason()).contains("no longer valid");
        assertThat(locks.article(article).html()).doesNotContain("typed for an hour");
    }

    @Test
    void case7_aEditsParagraph2_bAsksForTheArticle_grantedWithParagraph2Locked() {
        locks.acquire(editorA, paragraph(2)).lock();
        EditLockResult b = locks.acquire(editorB, article);
        assertThat(b.isGranted()).isTrue();
        EditStatus status = locks.status(article);
        assertThat(status.articleLock().userId()).isEqualTo(editorB);
        assertThat(status.paragraphLocks()).singleElement().satisfies(l -> {
            assertThat(l.userId()).isEqualTo(editorA);
            assertThat(l.resource()).isEqualTo(paragraph(2));
        });
    }

    @Test
    void case8_aEditsParagraph2_bAsksForParagraph2_refused() {
        locks.acquire(editorA, paragraph(2)).lock();
        assertRefused(locks.acquire(editorB, paragraph(2)), editorA);
    }

    @Test
    void case9_aEditsParagraph2_bAsksForParagraph3_granted() {
        locks.acquire(editorA, paragraph(2)).lock();
        assertThat(locks.acquire(editorB, paragraph(3)).isGranted()).isTrue();
    }

    @Test
    void aParagraphCannotBeTakenWhileTheArticleIsLockedByAnother_butItsHolderMay() {
        locks.acquire(editorA, article).lock();
        EditLockResult b = locks.acquire(editorB, paragraph(1));
        assertRefused(b, editorA);
        assertThat(b.reason()).contains("the article");
        assertThat(locks.acquire(editorA, paragraph(1)).isGranted()).isTrue();
    }

    @Test
    void reEntry_theHolderAskingAgainKeepsItsLock() {
        EditLock first = locks.acquire(editorA, article).lock();
        clock.advance(Duration.ofMinutes(1));
        EditLock again = locks.acquire(editorA, article).lock();
        assertThat(again.lockId()).isEqualTo(first.lockId());
        assertThat(again.heartBeatTime()).isAfter(first.heartBeatTime());
        assertThat(again.startTime()).isEqualTo(first.startTime());
    }

    @Test
    void onlyTheHolderMayHeartbeatOrRelease_evenWithTheLockId() {
        EditLock a = locks.acquire(editorA, article).lock();
        assertThat(failure(() -> locks.heartbeat(editorB, a.lockId())).getExceptionCode()).isEqualTo(ExceptionCode.E_ACCESS_DENIED);
        assertThat(failure(() -> locks.release(editorB, a.lockId())).getExceptionCode()).isEqualTo(ExceptionCode.E_ACCESS_DENIED);
        assertThat(failure(() -> locks.release(editorB, UUID.randomUUID().toString())).getExceptionCode())
                .isEqualTo(ExceptionCode.E_LEASE_LAPSED);
        assertThat(locks.status(article).articleLock().userId()).isEqualTo(editorA);
        SaveResult foreign = locks.save(editorB, a.lockId(), "<p>vandal</p>", locks.article(article).usn());
        assertThat(foreign.saved()).isFalse();
        assertThat(foreign.text()).isEqualTo("<p>vandal</p>");
    }

    @Test
    void severalParagraphs_allOrNone() {
        locks.acquire(editorB, paragraph(3)).lock();
        EditLockResult a = locks.acquire(editorA, List.of(paragraph(1), paragraph(3)));
        assertRefused(a, editorB);
        assertThat(locks.status(article).paragraphLocks()).extracting(l -> l.resource()).containsExactly(paragraph(3));
        assertThat(locks.acquire(editorA, List.of(paragraph(1), paragraph(2))).locks()).hasSize(2);
    }

    @Test
    void maxLocksPerUser_isEnforced_andALapsedLockDoesNotCount() {
        String user = "U" + UUID.randomUUID().toString().substring(0, 6);
        for (int i = 1; i <= 3; i++) {
            assertThat(locks.acquire(user, paragraph(i)).isGranted()).isTrue();
        }
        EditLockResult fourth = locks.acquire(user, paragraph(4));
        assertThat(fourth.isGranted()).isFalse();
        assertThat(fourth.reason()).contains("most edit locks allowed (3");
        clock.advance(Duration.ofMinutes(3)); // all three lapse
        assertThat(locks.acquire(user, paragraph(4)).isGranted()).isTrue();
    }

    @Test
    void savingAParagraph_mergesIntoTheLatestArticle_andParagraphIdsStayWithTheirText() {
        EditLock p2 = locks.acquire(editorA, paragraph(2)).lock();
        EditLock p3 = locks.acquire(editorB, paragraph(3)).lock();
        assertThat(locks.save(editorB, p3.lockId(), "Shanghai, edited by B.", 0).saved()).isTrue();
        assertThat(locks.save(editorA, p2.lockId(), "Beijing, edited by A.", 0).saved()).isTrue();
        Article after = locks.article(article);
        assertThat(after.html()).contains("Beijing, edited by A.").contains("Shanghai, edited by B.");
        // An article editor inserts a paragraph before paragraph 2 and deletes the last one: ids stay with their text.
        locks.release(editorA, p2.lockId());
        locks.release(editorB, p3.lockId());
        EditLock whole = locks.acquire(editorC, article).lock();
        String edited = after.html().replace("<p data-pid=\"" + paragraphs.get(0).id() + "\">",
                "<p>A new first paragraph.</p><p data-pid=\"" + paragraphs.get(0).id() + "\">")
                .replace("<p data-pid=\"" + paragraphs.get(3).id() + "\">The end.</p>", "");
        assertThat(locks.save(editorC, whole.lockId(), edited, after.usn()).saved()).isTrue();
        List<Paragraph> now = locks.article(article).paragraphs();
        assertThat(now).hasSize(4);
        assertThat(now.get(0).id()).isNotIn(paragraphs.stream().map(Paragraph::id).toList());
        assertThat(now.get(2).id()).isEqualTo(paragraphs.get(1).id());
        assertThat(now.get(2).html()).contains("Beijing, edited by A.");
    }

    @Test
    void anArticleSaveOnAStaleUsn_isRefusedWithTheTextReturned() {
        EditLock p = locks.acquire(editorA, paragraph(1)).lock();
        Article loadedByB = locks.article(article);
        assertThat(locks.save(editorA, p.lockId(), "changed", 0).saved()).isTrue();
        EditLock b = locks.acquire(editorB, article).lock();
        SaveResult r = locks.save(editorB, b.lockId(), "<p>B's version</p>", loadedByB.usn());
        assertThat(r.saved()).isFalse();
        assertThat(r.text()).isEqualTo("<p>B's version</p>");
        assertThat(r.reason()).contains("changed since you loaded it");
    }

    @Test
    void sixteenThreadsRaceForOneParagraph_exactlyOneWins() throws Exception {
        int threads = 16;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<EditLockResult>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String user = "racer" + t;
                results.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    return locks.acquire(user, paragraph(2));
                }));
            }
            int winners = 0;
            for (Future<EditLockResult> f : results) {
                winners += f.get(60, TimeUnit.SECONDS).isGranted() ? 1 : 0;
            }
            assertThat(winners).isEqualTo(1);
            assertThat(locks.status(article).paragraphLocks()).hasSize(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void multiParagraphRequestsInOppositeOrders_neverDeadlock() throws Exception {
        int threads = 6;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String user = "multi" + t;
                List<EditResource> order = t % 2 == 0 ? List.of(paragraph(1), paragraph(2), paragraph(3))
                        : List.of(paragraph(3), paragraph(2), paragraph(1));
                results.add(pool.submit(() -> {
                    int granted = 0;
                    for (int i = 0; i < 20; i++) {
                        EditLockResult r = locks.acquire(user, order);
                        if (r.isGranted()) {
                            granted++;
                            for (EditLock l : r.locks()) {
                                locks.release(user, l.lockId());
                            }
                        }
                    }
                    return granted;
                }));
            }
            int total = 0;
            for (Future<Integer> f : results) {
                total += f.get(120, TimeUnit.SECONDS);
            }
            assertThat(total).isPositive();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void everyOperationIsAudited() {
        EditLock a = locks.acquire(editorA, article).lock();
        locks.acquire(editorB, article);
        locks.heartbeat(editorA, a.lockId());
        locks.release(editorA, a.lockId());
        List<String> audit = ((DefaultEditLocks) locks).auditOf(article.resourceId());
        assertThat(audit).containsSubsequence("editor create ok", editorA + " acquire granted", editorB + " acquire refused",
                editorA + " heartbeat ok", editorA + " release ok");
    }

    @Test
    void statusShowsOnlyTheArticlesOwnParagraphs_evenWithAnUnderscoreInItsId() {
        String base = "u" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        Article underscored = locks.createArticle("editor", WIKI, base + "_1", "<p>one</p>");
        Article lookalike = locks.createArticle("editor", WIKI, base + "x1", "<p>two</p>");
        assertThat(locks.acquire(editorA, EditResource.paragraph(WIKI, lookalike.articleId(),
                lookalike.paragraphs().get(0).id())).isGranted()).isTrue();
        assertThat(locks.status(EditResource.article(WIKI, underscored.articleId())).paragraphLocks()).isEmpty();
    }

    @Test
    void badInput_failsWithAClearError() {
        assertThat(failure(() -> EditResource.article("wiki", "bad id!")).getMessage()).contains("article id").contains("bad id!");
        assertThat(failure(() -> locks.acquire(editorA, EditResource.paragraph("plain", "x", "p1"))).getMessage())
                .contains("paragraph locks are off for type plain");
        assertThat(failure(() -> locks.acquire(editorA, List.of(paragraph(1), EditResource.article(WIKI, "other")))).getMessage())
                .contains("paragraphs of one article");
        assertThat(failure(() -> locks.acquire("", article)).getExceptionCode()).isEqualTo(ExceptionCode.E_BAD_VALUE);
        assertThat(failure(() -> new EditLockConfig(Duration.ofMinutes(2), Duration.ofMinutes(1), true, List.of("p"), 3)).getMessage())
                .contains("edit lock timeout");
        assertThat(failure(() -> locks.article(EditResource.article(WIKI, "missing-" + UUID.randomUUID().toString().substring(0, 6))))
                .getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_NOT_FOUND);
        assertThat(locks.status(article).articleLock()).isNull();
    }
}
