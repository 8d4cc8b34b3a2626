package dev.turnstile.engine.editlock;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.LockBreak;
import dev.turnstile.api.LockPage;
import dev.turnstile.api.LockQuery;
import dev.turnstile.api.editlock.Article;
import dev.turnstile.api.editlock.EditAuditEntry;
import dev.turnstile.api.editlock.EditLock;
import dev.turnstile.api.editlock.EditLockConfig;
import dev.turnstile.api.editlock.EditLockResult;
import dev.turnstile.api.editlock.EditLocks;
import dev.turnstile.api.editlock.EditLocksConfig;
import dev.turnstile.api.editlock.EditResource;
import dev.turnstile.api.editlock.EditStatus;
import dev.turnstile.api.editlock.Paragraph;
import dev.turnstile.api.editlock.SaveResult;
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
import java.util.Set;
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
    /** A type whose locks lapse soon: a 40 s heartbeat, a minute in all. */
    static final String QUICK = "quick";
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
                .editLocks(EditLocksConfig.builder().type(WIKI, new EditLockConfig(Duration.ofMinutes(2), Duration.ofHours(1), true, List.of("p", "pre"), 3))
                        .type(QUICK, new EditLockConfig(Duration.ofSeconds(40), Duration.ofMinutes(1), false, List.of("p"), 20)).build())
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
        Article a = as("editor").createArticle(WIKI, id, "<h1>Cities</h1><p>Beijing is a city.</p><p>Shanghai too.</p>"
                + "<pre>code</pre><p>The end.</p>");
        article = EditResource.article(WIKI, id);
        paragraphs = a.paragraphs();
    }

    /** Every lock of the test lapses: the clock moves past the timeout (it only ever moves forward). */
    @org.junit.jupiter.api.AfterEach
    void everyLockLapses() {
        clock.advance(Duration.ofHours(2));
    }

    /** The edit locks as {@code user}. */
    private EditLocks as(String user) {
        return engine.session(user).editLocks();
    }

    private EditResource paragraph(int n) {
        return EditResource.paragraph(WIKI, article.articleId(), paragraphs.get(n - 1).id());
    }

    /** A resource's audit trail, oldest first, as "user operation outcome" lines. */
    private List<String> auditOf(String resourceId) {
        List<String> lines = new ArrayList<>(locks.audit(resourceId, 1000).stream()
                .map(a -> a.user() + " " + a.operation() + " " + a.outcome()).toList());
        java.util.Collections.reverse(lines);
        return lines;
    }

    private void assertRefused(EditLockResult r, String holder) {
        assertThat(r.isGranted()).isFalse();
        assertThat(r.refused().holder()).isEqualTo(holder);
        assertThat(r.refused().reason()).contains(holder);
    }

    @Test
    void auditRowsPastTheRetention_goInTheSweep_newerOnesStay() {
        as(editorA).tryLock(article);
        clock.advance(EditLocksConfig.DEFAULT_AUDIT_RETENTION.plusDays(1));
        as(editorB).tryLock(article);
        ((DefaultEditLocks) locks).service().sweepAudit(); // B's acquire may have swept already (one in 64): then this finds nothing
        assertThat(locks.audit(article.resourceId(), 10)).as("only the row within the retention is left")
                .extracting(EditAuditEntry::user).containsExactly(editorB);
    }

    @Test
    void articleObjects_changeOnlyThroughTheEditLockService() {
        UUID id = EditLockService.idOf(article);
        var os = engine.session(editorB).objectStore();
        var around = os.fetchCustomObject("EditableArticle", id, dev.turnstile.api.PropertyFilter.ALL);
        around.getProperties().putValue("Html", "<p>vandal</p>");
        EngineRuntimeException e = failure(() -> around.save(dev.turnstile.api.RefreshMode.REFRESH));
        assertThat(e).hasMessage("E_ACCESS_DENIED: " + editorB + " may not save EditableArticle {" + id + "}: objects of the"
                + " engine's class EditableArticle change only through the edit lock service (a session's editLocks())");
        assertThat(locks.article(article).html()).doesNotContain("vandal");
    }

    @Test
    void case1_aEditsAndSavesBeijing() {
        EditLock a = as(editorA).tryLock(article).granted().lock();
        Article loaded = locks.article(article);
        SaveResult saved = as(editorA).save(a.lockToken(), loaded.html().replace("Beijing is a city.", "Beijing"), loaded.usn());
        assertThat(saved.saved()).isTrue();
        assertThat(locks.article(article).html()).contains(">Beijing</p>");
        as(editorA).unlock(a.lockToken());
        assertThat(locks.status(article).articleLock()).isNull();
    }

    @Test
    void case2_bAsksWhileAEdits_refusedNamingAAndSince() {
        EditLock a = as(editorA).tryLock(article).granted().lock();
        EditLockResult b = as(editorB).tryLock(article);
        assertRefused(b, editorA);
        assertThat(b.refused().holderSince()).isEqualTo(a.lockedAt());
    }

    @Test
    void case3_aHasEditedFiveMinutes_bRefused() {
        EditLock a = as(editorA).tryLock(article).granted().lock();
        for (int i = 0; i < 5; i++) {
            clock.advance(Duration.ofMinutes(1));
            as(editorA).heartbeat(a.lockToken());
        }
        assertRefused(as(editorB).tryLock(article), editorA);
    }

    @Test
    void case4_aClosedTheBrowser_bWithinTwoMinutes_refused() {
        as(editorA).tryLock(article).granted().lock();
        clock.advance(Duration.ofMinutes(2)); // exactly the heartbeat: still valid
        assertRefused(as(editorB).tryLock(article), editorA);
    }

    @Test
    void case5_aClosedTheBrowser_bAfterTheHeartbeatLapsed_granted() {
        EditLock a = as(editorA).tryLock(article).granted().lock();
        clock.advance(Duration.ofMinutes(2).plusMillis(1));
        EditLockResult b = as(editorB).tryLock(article);
        assertThat(b.isGranted()).isTrue();
        assertThat(b.granted().lock().holder()).isEqualTo(editorB);
        assertThat(failure(() -> as(editorA).heartbeat(a.lockToken())).getExceptionCode()).isEqualTo(ExceptionCode.E_LEASE_LAPSED);
    }

    @Test
    void aLockNoLongerHeld_isSaidInTheWordsOfEditLocks_withItsExpiryWhenKnown() {
        EditLock a = as(editorA).tryLock(article).granted().lock();
        clock.advance(Duration.ofMinutes(2).plusMillis(1));
        assertThat(failure(() -> as(editorA).heartbeat(a.lockToken())).getMessage()).as("lapsed, not yet taken over")
                .isEqualTo("E_LEASE_LAPSED: Edit lock " + a.lockToken() + " of " + editorA + " is no longer held; it expired at "
                        + a.expiresAt() + " or was released");
        assertThat(as(editorB).tryLock(article).isGranted()).isTrue();
        assertThat(failure(() -> as(editorA).heartbeat(a.lockToken())).getMessage()).as("taken over: no expiry to tell")
                .isEqualTo("E_LEASE_LAPSED: Edit lock " + a.lockToken() + " of " + editorA + " is no longer held; it was released,"
                        + " taken over or never issued");
    }

    @Test
    void case6_aEditsOverAnHour_lockLapses_bTakesIt_aSaveRefusedWithTextReturned() {
        EditLock a = as(editorA).tryLock(article).granted().lock();
        Article loaded = locks.article(article);
        for (int i = 0; i < 60; i++) { // heartbeats every minute for an hour
            clock.advance(Duration.ofMinutes(1));
            as(editorA).heartbeat(a.lockToken());
        }
        clock.advance(Duration.ofSeconds(1));
        EngineRuntimeException lapsed = failure(() -> as(editorA).heartbeat(a.lockToken()));
        assertThat(lapsed.getExceptionCode()).isEqualTo(ExceptionCode.E_LEASE_LAPSED);
        assertThat(as(editorB).tryLock(article).isGranted()).isTrue();
        String typed = loaded.html().replace("Beijing is a city.", "Beijing, typed for an hour");
        SaveResult refused = as(editorA).save(a.lockToken(), typed, loaded.usn());
        assertThat(refused.saved()).isFalse();
        assertThat(refused.text()).isEqualTo(typed);
        assertThat(refused.reason()).contains("no longer valid");
        assertThat(locks.article(article).html()).doesNotContain("typed for an hour");
    }

    @Test
    void case7_aEditsParagraph2_bAsksForTheArticle_grantedWithParagraph2Locked() {
        as(editorA).tryLock(paragraph(2)).granted().lock();
        EditLockResult b = as(editorB).tryLock(article);
        assertThat(b.isGranted()).isTrue();
        EditStatus status = locks.status(article);
        assertThat(status.articleLock().holder()).isEqualTo(editorB);
        assertThat(status.paragraphLocks()).singleElement().satisfies(l -> {
            assertThat(l.holder()).isEqualTo(editorA);
            assertThat(l.resource()).isEqualTo(paragraph(2));
        });
    }

    @Test
    void case8_aEditsParagraph2_bAsksForParagraph2_refused() {
        as(editorA).tryLock(paragraph(2)).granted().lock();
        assertRefused(as(editorB).tryLock(paragraph(2)), editorA);
    }

    @Test
    void case9_aEditsParagraph2_bAsksForParagraph3_granted() {
        as(editorA).tryLock(paragraph(2)).granted().lock();
        assertThat(as(editorB).tryLock(paragraph(3)).isGranted()).isTrue();
    }

    @Test
    void aParagraphCannotBeTakenWhileTheArticleIsLockedByAnother_butItsHolderMay() {
        as(editorA).tryLock(article).granted().lock();
        EditLockResult b = as(editorB).tryLock(paragraph(1));
        assertRefused(b, editorA);
        assertThat(b.refused().reason()).contains("the article");
        assertThat(as(editorA).tryLock(paragraph(1)).isGranted()).isTrue();
    }

    @Test
    void reEntry_theHolderAskingAgainKeepsItsLock() {
        EditLock first = as(editorA).tryLock(article).granted().lock();
        clock.advance(Duration.ofMinutes(1));
        EditLock again = as(editorA).tryLock(article).granted().lock();
        assertThat(again.lockToken()).isEqualTo(first.lockToken());
        assertThat(again.heartbeatAt()).isAfter(first.heartbeatAt());
        assertThat(again.lockedAt()).isEqualTo(first.lockedAt());
    }

    @Test
    void onlyTheHolderMayHeartbeatOrRelease_evenWithTheLockId() {
        EditLock a = as(editorA).tryLock(article).granted().lock();
        assertThat(failure(() -> as(editorB).heartbeat(a.lockToken())).getExceptionCode()).isEqualTo(ExceptionCode.E_ACCESS_DENIED);
        assertThat(failure(() -> as(editorB).unlock(a.lockToken())).getExceptionCode()).isEqualTo(ExceptionCode.E_ACCESS_DENIED);
        assertThat(failure(() -> as(editorB).unlock(UUID.randomUUID().toString())).getExceptionCode())
                .isEqualTo(ExceptionCode.E_LEASE_LAPSED);
        assertThat(locks.status(article).articleLock().holder()).isEqualTo(editorA);
        SaveResult foreign = as(editorB).save(a.lockToken(), "<p>vandal</p>", locks.article(article).usn());
        assertThat(foreign.saved()).isFalse();
        assertThat(foreign.text()).isEqualTo("<p>vandal</p>");
    }

    @Test
    void severalParagraphs_allOrNone() {
        as(editorB).tryLock(paragraph(3)).granted().lock();
        EditLockResult a = as(editorA).tryLock(List.of(paragraph(1), paragraph(3)));
        assertRefused(a, editorB);
        assertThat(locks.status(article).paragraphLocks()).extracting(l -> l.resource()).containsExactly(paragraph(3));
        assertThat(as(editorA).tryLock(List.of(paragraph(1), paragraph(2))).granted().locks()).hasSize(2);
    }

    @Test
    void maxLocksPerUser_isEnforced_andALapsedLockDoesNotCount() {
        String user = "U" + UUID.randomUUID().toString().substring(0, 6);
        EditLock oldest = as(user).tryLock(paragraph(1)).granted().lock();
        clock.advance(Duration.ofSeconds(5));
        for (int i = 2; i <= 3; i++) {
            assertThat(as(user).tryLock(paragraph(i)).isGranted()).isTrue();
        }
        EditLockResult fourth = as(user).tryLock(paragraph(4));
        assertThat(fourth.isGranted()).isFalse();
        assertThat(fourth.refused().reason()).contains("most edit locks allowed (3");
        // The refusal names the user as holder since its oldest lock of the type: no field is left null.
        assertThat(fourth.refused().resource()).isEqualTo(paragraph(4));
        assertThat(fourth.refused().holder()).isEqualTo(user);
        assertThat(fourth.refused().holderSince()).isEqualTo(oldest.lockedAt());
        assertThat(failure(fourth::granted)).hasMessage("E_OBJECT_LOCKED: " + fourth.refused().reason());
        clock.advance(Duration.ofMinutes(3)); // all three lapse
        assertThat(as(user).tryLock(paragraph(4)).isGranted()).isTrue();
    }

    @Test
    void savingAParagraph_mergesIntoTheLatestArticle_andParagraphIdsStayWithTheirText() {
        EditLock p2 = as(editorA).tryLock(paragraph(2)).granted().lock();
        EditLock p3 = as(editorB).tryLock(paragraph(3)).granted().lock();
        assertThat(as(editorB).save(p3.lockToken(), "Shanghai, edited by B.", 0).saved()).isTrue();
        assertThat(as(editorA).save(p2.lockToken(), "Beijing, edited by A.", 0).saved()).isTrue();
        Article after = locks.article(article);
        assertThat(after.html()).contains("Beijing, edited by A.").contains("Shanghai, edited by B.");
        // An article editor inserts a paragraph before paragraph 2 and deletes the last one: ids stay with their text.
        as(editorA).unlock(p2.lockToken());
        as(editorB).unlock(p3.lockToken());
        EditLock whole = as(editorC).tryLock(article).granted().lock();
        String edited = after.html().replace("<p data-pid=\"" + paragraphs.get(0).id() + "\">",
                "<p>A new first paragraph.</p><p data-pid=\"" + paragraphs.get(0).id() + "\">")
                .replace("<p data-pid=\"" + paragraphs.get(3).id() + "\">The end.</p>", "");
        assertThat(as(editorC).save(whole.lockToken(), edited, after.usn()).saved()).isTrue();
        List<Paragraph> now = locks.article(article).paragraphs();
        assertThat(now).hasSize(4);
        assertThat(now.get(0).id()).isNotIn(paragraphs.stream().map(Paragraph::id).toList());
        assertThat(now.get(2).id()).isEqualTo(paragraphs.get(1).id());
        assertThat(now.get(2).html()).contains("Beijing, edited by A.");
    }

    @Test
    void anArticleSaveOnAStaleUsn_isRefusedWithTheTextReturned() {
        EditLock p = as(editorA).tryLock(paragraph(1)).granted().lock();
        Article loadedByB = locks.article(article);
        assertThat(as(editorA).save(p.lockToken(), "changed", 0).saved()).isTrue();
        EditLock b = as(editorB).tryLock(article).granted().lock();
        SaveResult r = as(editorB).save(b.lockToken(), "<p>B's version</p>", loadedByB.usn());
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
                    return as(user).tryLock(paragraph(2));
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
                        EditLockResult r = as(user).tryLock(order);
                        if (r.isGranted()) {
                            granted++;
                            for (EditLock l : r.granted().locks()) {
                                as(user).unlock(l.lockToken());
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
        EditLock a = as(editorA).tryLock(article).granted().lock();
        as(editorB).tryLock(article);
        as(editorA).heartbeat(a.lockToken());
        as(editorA).unlock(a.lockToken());
        List<String> audit = auditOf(article.resourceId());
        assertThat(audit).containsSubsequence("editor create ok", editorA + " acquire granted", editorB + " acquire refused",
                editorA + " heartbeat ok", editorA + " release ok");
    }

    @Test
    void heldLocksListsEveryValidLock_andARefusedHeartbeatIsAuditedUnderTheResource() {
        EditLock a = as(editorA).tryLock(paragraph(1)).granted().lock();
        EditLock b = as(editorB).tryLock(paragraph(2)).granted().lock();
        EditLock gone = as(editorC).tryLock(paragraph(3)).granted().lock();
        as(editorC).unlock(gone.lockToken());
        assertThat(locks.heldLocks(LockQuery.first(10_000)).items()).extracting(EditLock::lockToken).contains(a.lockToken(), b.lockToken())
                .doesNotContain(gone.lockToken());
        assertThat(failure(() -> as(editorB).heartbeat(a.lockToken())).getExceptionCode()).isEqualTo(ExceptionCode.E_ACCESS_DENIED);
        assertThat(locks.audit(paragraph(1).resourceId(), 1)).singleElement().satisfies(e -> {
            assertThat(e.user()).isEqualTo(editorB);
            assertThat(e.operation()).isEqualTo("heartbeat");
            assertThat(e.outcome()).isEqualTo("refused");
            assertThat(e.detail()).contains("it is not theirs");
        });
        clock.advance(Duration.ofMinutes(3));
        assertThat(locks.heldLocks(LockQuery.first(10_000)).items()).extracting(EditLock::lockToken).doesNotContain(a.lockToken(), b.lockToken());
        assertThat(failure(() -> LockQuery.first(0)).getMessage()).isEqualTo("E_BAD_VALUE: Bad value for lock query limit: 0 [Integer] (1 to 10000)");
    }

    /**
     * Issue 43: the console met 1,000 locks and showed the oldest 500 without a word of the rest. The
     * database now filters, counts, orders and pages, by each type's own rules of validity.
     */
    @Test
    void heldLocks_arePagedFilteredAndCountedByTheDatabase_byEachTypesRules() {
        String id = "pages-" + UUID.randomUUID().toString().substring(0, 8);
        Article a = as("editor").createArticle(WIKI, id, "<p>1</p><p>2</p><p>3</p><p>4</p><p>5</p><p>6</p><p>7</p>");
        List<String> taken = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            taken.add(as("pager" + i % 3 + "-" + id).tryLock(paragraph(a, i + 1)).granted().lock().lockToken());
            clock.advance(Duration.ofSeconds(1));
        }
        LockQuery ofArticle = LockQuery.first(3).contains(id);
        List<String> paged = new ArrayList<>();
        for (int offset = 0; offset < 7; offset += 3) {
            LockPage<EditLock> page = locks.heldLocks(ofArticle.offset(offset));
            assertThat(page.total()).as("every page counts them all").isEqualTo(7);
            assertThat(page.hasMore()).isEqualTo(offset + 3 < 7);
            page.items().forEach(l -> paged.add(l.lockToken()));
        }
        assertThat(paged).as("three pages, oldest first, none twice, none left out").isEqualTo(taken);
        assertThat(locks.heldLocks(ofArticle.offset(9)).items()).isEmpty();
        assertThat(locks.heldLocks(ofArticle.order(LockQuery.Order.NEWEST)).items().get(0).lockToken()).isEqualTo(taken.get(6));
        assertThat(locks.heldLocks(LockQuery.first(10).contains(id).order(LockQuery.Order.HOLDER)).items()).extracting(EditLock::holder)
                .isSorted().hasSize(7);
        LockPage<EditLock> pager1 = locks.heldLocks(ofArticle.holder("pager1-" + id));
        assertThat(pager1.total()).isEqualTo(2);
        assertThat(pager1.items()).extracting(EditLock::lockToken).containsExactly(taken.get(1), taken.get(4));
        assertThat(locks.heldLocks(LockQuery.first(5).lockToken(taken.get(4))).items()).extracting(EditLock::lockToken)
                .containsExactly(taken.get(4));
        assertThat(locks.heldLocks(LockQuery.first(5).lockToken("no-such-lock")).total()).isZero();
        assertThat(locks.heldLocks(LockQuery.first(5).contains(id.replace('-', '_'))).total()).as("_ is no wildcard").isZero();

        // Each type by its own rules: a quick lock lapses by its timeout though its heartbeat is fresh.
        as("editor").createArticle(QUICK, id, "<p>q</p>");
        as("editor").createArticle("doc", id, "<p>d</p>");
        String quick = as("quicker").tryLock(EditResource.article(QUICK, id)).granted().lock().lockToken();
        String doc = as("docker").tryLock(EditResource.article("doc", id)).granted().lock().lockToken();
        LockQuery anyType = LockQuery.first(100).contains(":" + id);
        assertThat(locks.heldLocks(anyType).total()).isEqualTo(9);
        clock.advance(Duration.ofSeconds(30));
        as("quicker").heartbeat(quick);
        clock.advance(Duration.ofSeconds(30));
        as("quicker").heartbeat(quick);
        assertThat(locks.heldLocks(anyType).total()).as("at its timeout it is still held").isEqualTo(9);
        clock.advance(Duration.ofSeconds(1));
        LockPage<EditLock> afterTimeout = locks.heldLocks(anyType);
        assertThat(afterTimeout.total()).isEqualTo(8);
        assertThat(afterTimeout.items()).extracting(EditLock::lockToken).doesNotContain(quick).contains(doc, taken.get(0));
        clock.advance(Duration.ofMinutes(2));
        assertThat(locks.heldLocks(anyType).total()).as("the wiki's and the default type's heartbeats lapsed").isZero();
    }

    /**
     * Issue 43: an operator ends an abandoned lock. Without the lock-breaking role, or without a
     * reason, refused and nothing changes; with both, the paragraph is free at once, the holder's
     * next heartbeat says who broke it, when and why, and the audit trail holds the break.
     */
    @Test
    void anOperatorBreaksAnAbandonedLock_theHolderIsToldWhoAndWhy_andTheAuditTrailHoldsIt() {
        EditLock held = as(editorA).tryLock(paragraph(2)).granted().lock();
        String id = held.lockToken();
        EngineRuntimeException noRole = failure(() -> as(editorB).breakLock(id, "gone home"));
        assertThat(noRole.getExceptionCode()).isEqualTo(ExceptionCode.E_ACCESS_DENIED);
        assertThat(noRole.getMessage()).isEqualTo("E_ACCESS_DENIED: " + editorB + " may not break edit lock " + id
                + ": that needs the role lock-breaker");
        EditLocks operator = engine.session("op-" + editorC, Set.of("lock-breaker")).editLocks();
        assertThat(failure(() -> operator.breakLock(id, " ")).getMessage()).isEqualTo("E_BAD_VALUE: Bad value for reason for"
                + " breaking edit lock " + id + ": \" \" (1 to 200 characters: why, for its holder and the audit trail)");
        assertRefused(as(editorB).tryLock(paragraph(2)), editorA);

        operator.breakLock(id, "left for the day with the paragraph open");
        EngineRuntimeException told = failure(() -> as(editorA).heartbeat(id));
        assertThat(told.getExceptionCode()).isEqualTo(ExceptionCode.E_LEASE_LAPSED);
        assertThat(told.getMessage()).startsWith("E_LEASE_LAPSED: Edit lock " + id + " of " + editorA + " on "
                + paragraph(2).resourceId() + " was broken by op-" + editorC + " at ")
                .endsWith(": left for the day with the paragraph open");
        assertThat(as(editorB).tryLock(paragraph(2)).isGranted()).as("free at once").isTrue();
        assertThat(failure(() -> as(editorA).unlock(id)).getMessage()).as("told also once another editor holds the paragraph")
                .isEqualTo(told.getMessage());
        assertThat(engine.lockBreaks(100)).filteredOn(b -> b.lockToken().equals(id)).singleElement().satisfies(b -> {
            assertThat(b.kind()).isEqualTo(LockBreak.Kind.EDIT);
            assertThat(b.holder() + " " + b.lockedWhat() + " " + b.brokenBy() + " " + b.reason()).isEqualTo(editorA + " "
                    + paragraph(2).resourceId() + " op-" + editorC + " left for the day with the paragraph open");
            assertThat(told.getMessage()).isEqualTo("E_LEASE_LAPSED: " + b.message());
        });
        assertThat(locks.audit(paragraph(2).resourceId(), 10)).anySatisfy(e -> {
            assertThat(e.user()).isEqualTo("op-" + editorC);
            assertThat(e.operation()).isEqualTo("break");
            assertThat(e.outcome()).isEqualTo("ok");
            assertThat(e.detail()).isEqualTo("lock " + id + " of " + editorA + ": left for the day with the paragraph open");
        });
        assertThat(failure(() -> operator.breakLock(id, "again")).getExceptionCode()).as("nothing left to break")
                .isEqualTo(ExceptionCode.E_LEASE_LAPSED);
    }

    @Test
    void statusShowsOnlyTheArticlesOwnParagraphs_evenWithAnUnderscoreInItsId() {
        String base = "u" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        Article underscored = as("editor").createArticle(WIKI, base + "_1", "<p>one</p>");
        Article lookalike = as("editor").createArticle(WIKI, base + "x1", "<p>two</p>");
        assertThat(as(editorA).tryLock(EditResource.paragraph(WIKI, lookalike.articleId(),
                lookalike.paragraphs().get(0).id())).isGranted()).isTrue();
        assertThat(locks.status(EditResource.article(WIKI, underscored.articleId())).paragraphLocks()).isEmpty();
    }

    /** Issue 43: an article's audit trail left out its paragraphs; a lookalike article's must stay out. */
    @Test
    void anArticlesAuditTrail_holdsItsParagraphs_andNoLookalikeArticles() {
        String base = "a" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        Article underscored = as("editor").createArticle(WIKI, base + "_1", "<p>one</p><p>two</p>");
        Article lookalike = as("editor").createArticle(WIKI, base + "x1", "<p>three</p>");
        EditResource first = EditResource.paragraph(WIKI, underscored.articleId(), underscored.paragraphs().get(0).id());
        EditLock a = as(editorA).tryLock(first).granted().lock();
        as(editorB).tryLock(first);
        as(editorA).unlock(a.lockToken());
        as(editorC).tryLock(EditResource.paragraph(WIKI, lookalike.articleId(), lookalike.paragraphs().get(0).id()));
        as(editorC).tryLock(EditResource.article(WIKI, underscored.articleId()));

        String whole = EditResource.article(WIKI, underscored.articleId()).resourceId();
        List<EditAuditEntry> trail = locks.audit(whole, 100);
        assertThat(trail).extracting(e -> e.user() + " " + e.operation() + " " + e.outcome() + " " + e.resourceId())
                .as("newest first, each naming its resource").containsExactly(
                        editorC + " acquire granted " + whole,
                        editorA + " release ok " + first.resourceId(),
                        editorB + " acquire refused " + first.resourceId(),
                        editorA + " acquire granted " + first.resourceId(),
                        "editor create ok " + whole);
        assertThat(locks.audit(first.resourceId(), 100)).as("a paragraph's trail, its own rows").hasSize(3);
        locks.heldLocks(LockQuery.first(100).holder(editorC)).items().forEach(l -> as(editorC).unlock(l.lockToken()));
    }

    // ---- paragraph granularity without lost updates ---------------------------------------------

    /** The article's HTML with paragraph {@code n}'s outer HTML replaced by {@code replacement}. */
    private String withParagraph(Article a, int n, String replacement) {
        String html = a.html();
        String p = a.paragraphs().get(n - 1).html();
        assertThat(html).contains(p);
        return html.replace(p, replacement);
    }

    private static String inner(Paragraph p) {
        return p.html().substring(p.html().indexOf('>') + 1, p.html().lastIndexOf('<'));
    }

    @Test
    void case7_bsArticleSaveMayNotChangeRemoveOrMoveParagraph2_whichAHolds_andNeitherWriteIsLost() {
        EditLock a = as(editorA).tryLock(paragraph(2)).granted().lock();
        Article loadedByA = locks.article(article);
        EditLock b = as(editorB).tryLock(article).granted().lock();
        Article loadedByB = locks.article(article);
        String p2 = paragraphs.get(1).id();
        String holder = editorA + " is editing since " + a.lockedAt() + "; leave it as it is";

        String changed = withParagraph(loadedByB, 2, "<p data-pid=\"" + p2 + "\">Beijing, by B.</p>");
        SaveResult r = as(editorB).save(b.lockToken(), changed, loadedByB.usn());
        assertThat(r.saved()).isFalse();
        assertThat(r.reason()).isEqualTo("the save would change paragraph " + p2 + ", which " + holder);
        assertThat(r.text()).isEqualTo(changed);
        String removed = withParagraph(loadedByB, 2, "");
        assertThat(as(editorB).save(b.lockToken(), removed, loadedByB.usn()).reason())
                .isEqualTo("the save would remove paragraph " + p2 + ", which " + holder);
        String p1 = loadedByB.paragraphs().get(0).html();
        String moved = withParagraph(loadedByB, 1, "").replace(loadedByB.paragraphs().get(1).html(),
                loadedByB.paragraphs().get(1).html() + p1);
        assertThat(as(editorB).save(b.lockToken(), moved, loadedByB.usn()).reason())
                .isEqualTo("the save would move paragraph " + p2 + ", which " + holder);
        // Renaming its id is removing it (the renamed copy gets a fresh id).
        String renamed = loadedByB.html().replace("data-pid=\"" + p2 + "\"", "data-pid=\"mine\"");
        assertThat(as(editorB).save(b.lockToken(), renamed, loadedByB.usn()).reason()).contains("would remove paragraph " + p2);
        assertThat(locks.article(article).usn()).isEqualTo(loadedByB.usn());

        // B changes paragraph 1 and inserts one after paragraph 2, which the browser handed back with its
        // own attributes on it: saved. Then A saves paragraph 2: merged. Both writes are in the article.
        String p2AsTheBrowserSendsIt = loadedByB.paragraphs().get(1).html().replace("<p ", "<p contenteditable=\"false\" class=\"locked-other\" ");
        String bsVersion = withParagraph(loadedByB, 1, "<p data-pid=\"" + paragraphs.get(0).id() + "\">Cities, by B.</p>")
                .replace(loadedByB.paragraphs().get(1).html(), p2AsTheBrowserSendsIt + "<p>New, by B.</p>");
        assertThat(as(editorB).save(b.lockToken(), bsVersion, loadedByB.usn()).saved()).isTrue();
        assertThat(as(editorA).save(a.lockToken(), "Beijing, by A.", loadedByA.usn()).saved()).isTrue();
        Article end = locks.article(article);
        assertThat(end.paragraphs()).extracting(Paragraph::html).containsExactly(
                "<p data-pid=\"" + paragraphs.get(0).id() + "\">Cities, by B.</p>",
                "<p data-pid=\"" + p2 + "\">Beijing, by A.</p>",
                "<p data-pid=\"" + end.paragraphs().get(2).id() + "\">New, by B.</p>",
                paragraphs.get(2).html(), paragraphs.get(3).html());
        assertThat(auditOf(article.resourceId())).contains(editorB + " save refused", editorB + " save saved");
        assertThat(auditOf(paragraph(2).resourceId())).contains(editorA + " save saved");
    }

    @Test
    void paragraphIdsBelongToTheServer_aSaveCannotAimALaterSaveAtOtherText() {
        String p3 = paragraphs.get(2).id();
        EditLock a = as(editorA).tryLock(paragraph(1)).granted().lock();
        Article loaded = locks.article(article);
        assertThat(as(editorA).save(a.lockToken(), "Beijing <b data-pid=\"" + p3 + "\">is</b> a city.", loaded.usn()).saved()).isTrue();
        assertThat(locks.article(article).paragraphs().get(0).html())
                .isEqualTo("<p data-pid=\"" + paragraphs.get(0).id() + "\">Beijing <b>is</b> a city.</p>");
        EditLock c = as(editorC).tryLock(paragraph(3)).granted().lock();
        assertThat(as(editorC).save(c.lockToken(), "code by C", locks.article(article).usn()).saved()).isTrue();
        Article end = locks.article(article);
        assertThat(end.paragraphs().get(0).html()).isEqualTo("<p data-pid=\"" + paragraphs.get(0).id() + "\">Beijing <b>is</b> a city.</p>");
        assertThat(end.paragraphs().get(2).html()).isEqualTo("<pre data-pid=\"" + p3 + "\">code by C</pre>");

        // An article save may keep ids the article has, once; invented, empty and repeated ones are replaced.
        as(editorA).unlock(a.lockToken());
        as(editorC).unlock(c.lockToken());
        EditLock whole = as(editorB).tryLock(article).granted().lock();
        String p1 = paragraphs.get(0).id();
        String html = "<p data-pid=\"" + p1 + "\">one</p><p data-pid=\"" + p1 + "\">two</p><p data-pid=\"\">three</p>"
                + "<p data-pid=\"invented\">four</p><h2 data-pid=\"" + p3 + "\">heading</h2>";
        assertThat(as(editorB).save(whole.lockToken(), html, end.usn()).saved()).isTrue();
        List<String> ids = locks.article(article).paragraphs().stream().map(Paragraph::id).toList();
        assertThat(ids).hasSize(4).doesNotHaveDuplicates().doesNotContain("", "invented", p3).startsWith(p1);
        assertThat(ids).allMatch(id -> id.matches("p[a-z0-9]{8}"));
        assertThat(locks.article(article).html()).contains("<h2>heading</h2>");
        EngineRuntimeException unknown = failure(() -> as(editorA).tryLock(EditResource.paragraph(WIKI, article.articleId(), "invented")));
        assertThat(unknown).hasMessage("E_BAD_VALUE: Bad value for edit lock request: \"" + article.resourceId() + "#invented\" (the"
                + " article " + article.resourceId() + " has no paragraph invented)");
        assertThat(locks.status(article).paragraphLocks()).isEmpty();
    }

    @Test
    void savedHtmlIsSanitised() {
        EditLock whole = as(editorA).tryLock(article).granted().lock();
        String hostile = "<p onclick=\"steal()\" style=\"x\">Hi <a href=\"javascript:steal()\">link</a>"
                + " <a href=\"https://example.org/\">ok</a><img src=x onerror=steal()></p><script>steal()</script>"
                + "<iframe src=\"https://evil.example/\"></iframe>";
        assertThat(as(editorA).save(whole.lockToken(), hostile, locks.article(article).usn()).saved()).isTrue();
        String stored = locks.article(article).html();
        assertThat(stored).doesNotContain("onclick", "style", "javascript", "onerror", "script", "iframe", "steal")
                .contains("<a href=\"https://example.org/\">ok</a>");
        EditLock p = as(editorA).tryLock(paragraph(locks.article(article), 1)).granted().lock();
        assertThat(as(editorA).save(p.lockToken(), "<span onmouseover=\"steal()\">x</span><script>steal()</script>",
                locks.article(article).usn()).saved()).isTrue();
        assertThat(locks.article(article).html()).doesNotContain("steal", "onmouseover").contains("<span>x</span>");
    }

    @Test
    void savingAParagraphUnchanged_isByteForByteANoOp_markupKept() {
        EditLock whole = as(editorA).tryLock(article).granted().lock();
        String rich = "<h1>Cities</h1>\n<p>Beijing is <b>big</b> &amp; <a href=\"https://en.wikipedia.org/wiki/Beijing\">old</a>"
                + " &lt;really&gt;&nbsp;—&nbsp;北京.<br>Second line.</p>\n  <pre>  code\n   indented</pre>";
        assertThat(as(editorA).save(whole.lockToken(), rich, locks.article(article).usn()).saved()).isTrue();
        as(editorA).unlock(whole.lockToken());
        Article before = locks.article(article);
        for (int n = 1; n <= 2; n++) {
            EditLock p = as(editorB).tryLock(paragraph(before, n)).granted().lock();
            SaveResult r = as(editorB).save(p.lockToken(), inner(before.paragraphs().get(n - 1)), before.usn());
            assertThat(r.saved()).isTrue();
            assertThat(r.usn()).isEqualTo(before.usn());
            as(editorB).unlock(p.lockToken());
        }
        Article after = locks.article(article);
        assertThat(after.html()).isEqualTo(before.html());
        assertThat(after.usn()).isEqualTo(before.usn());
        assertThat(after.html()).contains("<b>big</b>", "<a href=\"https://en.wikipedia.org/wiki/Beijing\">old</a>", "<br>", "北京");
    }

    private static EditResource paragraph(Article a, int n) {
        return EditResource.paragraph(a.type(), a.articleId(), a.paragraphs().get(n - 1).id());
    }

    /**
     * Issue 43: an article made from HTML the parser repairs got new paragraph ids on every read
     * until its first save, so none of its paragraphs could be locked and saved. Its ids now hold
     * from the first read on.
     */
    @Test
    void anArticleFromBrokenHtml_keepsItsParagraphIds_fromReadToRead_andAParagraphOfItCanBeSaved() {
        String id = "b" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        Article created = as("editor").createArticle(WIKI, id, "<p>x<noscript><p>y</noscript>z</p>");
        EditResource broken = EditResource.article(WIKI, id);
        Article first = locks.article(broken);
        Article second = locks.article(broken);
        assertThat(first.paragraphs()).extracting(Paragraph::id).isNotEmpty()
                .isEqualTo(created.paragraphs().stream().map(Paragraph::id).toList())
                .isEqualTo(second.paragraphs().stream().map(Paragraph::id).toList());
        EditLock p = as(editorA).tryLock(paragraph(first, 1)).granted().lock();
        SaveResult r = as(editorA).save(p.lockToken(), "mended", first.usn());
        assertThat(r.saved()).as("%s", r).isTrue();
        assertThat(locks.article(broken).paragraphs().get(0).html()).contains("mended");
    }

    @Test
    void aParagraphSaveThatWouldSplitTheParagraph_isRefused() {
        EditLock p = as(editorA).tryLock(paragraph(1)).granted().lock();
        Article loaded = locks.article(article);
        SaveResult r = as(editorA).save(p.lockToken(), "one</p><p>two", loaded.usn());
        assertThat(r.saved()).isFalse();
        assertThat(r.text()).isEqualTo("one</p><p>two");
        SaveResult block = as(editorA).save(p.lockToken(), "one<div>two</div>", loaded.usn());
        assertThat(block.reason()).isEqualTo("the text for paragraph " + paragraphs.get(0).id() + " holds a paragraph of its own"
                + " (p, pre) or a block that ends one; save it as the article instead");
        assertThat(locks.article(article).html()).isEqualTo(loaded.html());
    }

    @Test
    void aParagraphSaveBuiltOnALoadOlderThanItsLock_isRefused_soTheFormerHoldersSaveStays() {
        Article loadedByB = locks.article(article); // B's page, before anything below
        EditLock a = as(editorA).tryLock(paragraph(2)).granted().lock();
        assertThat(as(editorA).save(a.lockToken(), "Beijing, by A.", locks.article(article).usn()).saved()).isTrue();
        clock.advance(Duration.ofMinutes(3)); // A's lock lapses
        EditLock b = as(editorB).tryLock(paragraph(2)).granted().lock();
        SaveResult stale = as(editorB).save(b.lockToken(), "Beijing is a city, by B.", loadedByB.usn());
        assertThat(stale.saved()).isFalse();
        assertThat(stale.reason()).isEqualTo("you loaded the article at USN " + loadedByB.usn() + ", before your lock on paragraph "
                + paragraphs.get(1).id() + " was granted at USN " + (loadedByB.usn() + 1) + ": load it again and edit from there");
        assertThat(locks.article(article).html()).contains("Beijing, by A.");
        assertThat(as(editorB).save(b.lockToken(), "Beijing, by A and B.", locks.article(article).usn()).saved()).isTrue();
    }

    /**
     * The save checks its lock and writes the article in one transaction: A's save waits for the
     * article row (another connection holds it) while A's lock lapses and B asks for it. Whatever
     * order the database lets them through, A's text is refused and handed back and B holds the lock.
     */
    @Test
    void aLapseAndTakeoverWhileASaveWaits_theSaveIsRefused() throws Exception {
        EditLock a = as(editorA).tryLock(paragraph(2)).granted().lock();
        long usn = locks.article(article).usn();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (java.sql.Connection holder = java.sql.DriverManager.getConnection(config().jdbcUrl(), config().username(), config().password());
             java.sql.Connection watch = java.sql.DriverManager.getConnection(config().jdbcUrl(), config().username(), config().password())) {
            holder.setAutoCommit(false);
            try (var lock = holder.prepareStatement("SELECT usn FROM ts_object WHERE id = ? FOR UPDATE")) {
                lock.setObject(1, EditLockService.idOf(article));
                lock.executeQuery().close();
            }
            int before = dev.turnstile.engine.TestDatabases.lockWaiters(watch);
            Future<SaveResult> save = pool.submit(() -> as(editorA).save(a.lockToken(), "Beijing, late, by A.", usn));
            org.awaitility.Awaitility.await("A's save waits for the article row").atMost(Duration.ofSeconds(30))
                    .until(() -> dev.turnstile.engine.TestDatabases.lockWaiters(watch) > before);
            clock.advance(Duration.ofMinutes(3)); // A's lock lapses
            Future<EditLockResult> takeover = pool.submit(() -> as(editorB).tryLock(paragraph(2)));
            org.awaitility.Awaitility.await("B's request waits too, or is granted").atMost(Duration.ofSeconds(30))
                    .until(() -> takeover.isDone() || dev.turnstile.engine.TestDatabases.lockWaiters(watch) > before + 1);
            holder.rollback();
            SaveResult r = save.get(30, TimeUnit.SECONDS);
            assertThat(takeover.get(30, TimeUnit.SECONDS).granted().lock().holder()).isEqualTo(editorB);
            assertThat(r.saved()).isFalse();
            assertThat(r.text()).isEqualTo("Beijing, late, by A.");
            assertThat(r.reason()).startsWith("your edit lock is no longer valid");
            assertThat(locks.article(article).html()).doesNotContain("late");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void beijing_thePapersOwnEntry_isAnArticleId_andIdsAreMeasuredInCodePoints() {
        String beijing = "北京-" + UUID.randomUUID().toString().substring(0, 6);
        Article a = as("editor").createArticle(WIKI, beijing, "<p>北京是中国的首都。</p><p>It is old.</p>");
        EditResource article = EditResource.article(WIKI, beijing);
        EditLock p = as(editorA).tryLock(EditResource.paragraph(WIKI, beijing, a.paragraphs().get(0).id())).granted().lock();
        assertThat(locks.status(article).paragraphLocks()).extracting(l -> l.holder()).containsExactly(editorA);
        assertThat(as(editorA).save(p.lockToken(), "北京，中国的首都。", a.usn()).saved()).isTrue();
        assertThat(locks.article(article).paragraphs().get(0).html()).contains("北京，中国的首都。");
        as(editorA).unlock(p.lockToken());

        String sixtyFour = "北".repeat(60) + "𠀀".repeat(4); // 64 code points, 68 UTF-16 units
        assertThat(EditResource.article(WIKI, sixtyFour).articleId()).isEqualTo(sixtyFour);
        EngineRuntimeException tooLong = failure(() -> EditResource.article(WIKI, sixtyFour + "京"));
        assertThat(tooLong).hasMessage("E_BAD_VALUE: Bad value for article id: \"" + sixtyFour + "京\" (1 to 64 letters or digits"
                + " (any script), '.', '_' or '-')");
        assertThat(failure(() -> EditResource.article("wiki", "北京/../x")).getMessage()).contains("article id");
        assertThat(EditResource.article("维基", "北京").resourceId()).isEqualTo("维基:北京");
    }

    @Test
    void badInput_failsWithAClearError() {
        assertThat(failure(() -> EditResource.article("wiki", "bad id!")).getMessage()).contains("article id").contains("bad id!");
        assertThat(failure(() -> as(editorA).tryLock(EditResource.paragraph("plain", "x", "p1"))).getMessage())
                .contains("paragraph locks are off for type plain");
        assertThat(failure(() -> as(editorA).tryLock(List.of(paragraph(1), EditResource.article(WIKI, "other")))).getMessage())
                .contains("paragraphs of one article");
        assertThat(failure(() -> as("").tryLock(article)).getExceptionCode()).isEqualTo(ExceptionCode.E_BAD_VALUE);
        assertThat(failure(() -> new EditLockConfig(Duration.ofMinutes(2), Duration.ofMinutes(1), true, List.of("p"), 3)).getMessage())
                .contains("edit lock timeout");
        EditResource missing = EditResource.article(WIKI, "missing-" + UUID.randomUUID().toString().substring(0, 6));
        assertThat(failure(() -> locks.article(missing))).as("named as its editors name it, not by the engine's object")
                .hasMessage("E_OBJECT_NOT_FOUND: There is no article " + missing.resourceId());
        assertThat(locks.status(article).articleLock()).isNull();
    }
}
