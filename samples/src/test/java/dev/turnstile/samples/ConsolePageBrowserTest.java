package dev.turnstile.samples;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.LockConfig;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.changes.ChangeFilter;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.changes.DeliveryMode;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.api.editlock.Article;
import dev.turnstile.api.editlock.EditLockConfig;
import dev.turnstile.api.editlock.EditLocksConfig;
import dev.turnstile.api.editlock.EditResource;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.samples.server.ServerUsers;
import dev.turnstile.samples.server.TurnstileServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The console at {@code /} in headless Chromium: an operator sees who holds what (edit, tree and
 * object locks), the dispensers with their register report and the feed clients with their lag,
 * watches a new lock appear without reloading, and reads one resource's audit trail.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("browser")
class ConsolePageBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private ContentEngine engine;
    private TurnstileServer server;
    private ServerUsers users;
    private WebDriver browser;
    private String url;

    @BeforeAll
    void start() {
        url = "jdbc:h2:file:" + Path.of("target", "h2", "console-" + UUID.randomUUID()).toAbsolutePath() + ";AUTO_SERVER=TRUE";
        engine = ContentEngine.open(EngineConfig.builder()
                .jdbcUrl(url)
                .editLocks(EditLocksConfig.builder().type("wiki", new EditLockConfig(Duration.ofMinutes(2), Duration.ofHours(1), true, List.of("p", "pre"), 20))
                        // heartbeats every 2 s: the page hears of a broken lock within one interval
                        .type("quick", new EditLockConfig(Duration.ofSeconds(6), Duration.ofHours(1), true, List.of("p", "pre"), 20)).build())
                .changes(ChangesConfig.of(true))
                .build());
        Map<String, Set<String>> demo = new LinkedHashMap<>();
        demo.put("operator", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE));
        demo.put("alice", Set.of());
        demo.put("breaker", Set.of(LockConfig.DEFAULT_BREAKER_ROLE));
        users = ServerUsers.demo(demo);
        server = new TurnstileServer(engine, users).start(0);
    }

    @AfterAll
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        server.close();
        engine.close();
    }

    private WebDriver open(String user) throws Exception {
        return open(user, "/");
    }

    private WebDriver open(String user, String page) throws Exception {
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + Files.createTempDirectory("chromium-console"));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File("/usr/bin/chromedriver"))
                .usingAnyFreePort().build();
        WebDriver d = new ChromeDriver(service, options);
        d.manage().window().setSize(new Dimension(1200, 1100));
        d.get("http://127.0.0.1:" + server.port() + page);
        wait(d).until(ExpectedConditions.visibilityOfElementLocated(By.id("login-user"))).sendKeys(user);
        d.findElement(By.id("login-password")).sendKeys(users.passwords().get(user));
        d.findElement(By.id("login-button")).click();
        wait(d).until(ExpectedConditions.textToBe(By.id("me"), user));
        return d;
    }

    private static WebDriverWait wait(WebDriver d) {
        WebDriverWait w = new WebDriverWait(d, WAIT);
        w.ignoring(StaleElementReferenceException.class);
        return w;
    }

    private static void tableShows(WebDriver d, String table, String... texts) {
        wait(d).until(x -> {
            String text = x.findElement(By.cssSelector("#" + table + " tbody")).getText();
            for (String t : texts) {
                if (!text.contains(t)) {
                    return false;
                }
            }
            return true;
        });
    }

    @Test
    void anOperatorSeesWhoHoldsWhat_dispensersAndFeedLag_liveAndWithTheAuditTrail() throws Exception {
        String id = "console-" + UUID.randomUUID().toString().substring(0, 6);
        Article article = engine.session("setup").editLocks().createArticle("wiki", id,
                "<p>One <b>bold</b> &amp; long first paragraph, of more than six words.</p><p>Two.</p>");
        engine.session("alice").editLocks().tryLock(EditResource.paragraph("wiki", id, article.paragraphs().get(0).id()));
        TreeLockHandle tree = engine.session("operation 17").treeLocks().tryLock(TreeLockRequest.exclusive(TreePath.root("site", "plant-" + id)
                .child("workshop", "A"))).orElseThrow();
        ObjectStore os = engine.session("bob").objectStore();
        String cls = "ConsoleDoc" + UUID.randomUUID().toString().replace("-", "").substring(0, 6);
        os.defineClass(cls, c -> c.string("Title", 40));
        CustomObject doc = os.createCustomObject(cls);
        doc.getProperties().putValue("Title", "contract");
        doc.lock(600, "review");
        doc.save(RefreshMode.REFRESH);
        String dispenserName = "inv-" + id;
        Dispenser d = engine.session("carol", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers()
                .create(dispenserName, DispenserConfig.builder().format("INV-{seq:4}").register(true).build());
        d.next(3);
        d.voidNumber(2, "printer jam");
        String client = "index-" + id;
        engine.changes().registerClient(client, ChangeFilter.ALL, DeliveryMode.QUEUE);
        try {
            browser = open("operator");
            tableShows(browser, "edit-locks", "wiki:" + id, article.paragraphs().get(0).id(), "alice");
            // Issue 43: a paragraph by its first words, and times as local times, not raw UTC with microseconds.
            tableShows(browser, "edit-locks", "“One bold & long first paragraph, …” (" + article.paragraphs().get(0).id() + ")");
            assertThat(browser.findElement(By.cssSelector("#edit-locks tbody")).getText()).doesNotContainPattern("\\d{2}:\\d{2}:\\d{2}\\.\\d+Z");
            tableShows(browser, "tree-locks", "operation 17", "workshop:A");
            tableShows(browser, "object-locks", cls, "bob", "review");
            tableShows(browser, "dispensers", dispenserName, "3");
            assertThat(browser.findElement(By.xpath("//table[@id='dispensers']//tr[td[1]='" + dispenserName + "']")).getText())
                    .contains(dispenserName + " 3").as("voided 1, missing none, in doubt none").contains(" 1 none none");
            tableShows(browser, "feed-clients", client);

            // Issue 43: a dispenser admin voids an issued number from the console, confirmed with a reason.
            By voidButton = By.xpath("//table[@id='dispensers']//tr[td[1]='" + dispenserName + "']//button[@class='void-number']");
            wait(browser).until(x -> {
                x.findElement(voidButton).click();
                return true;
            });
            wait(browser).until(ExpectedConditions.alertIsPresent()).sendKeys("3");
            browser.switchTo().alert().accept();
            org.openqa.selenium.Alert why = wait(browser).until(ExpectedConditions.alertIsPresent());
            assertThat(why.getText()).startsWith("Void " + dispenserName + " number 3?");
            why.sendKeys("duplicate of INV-0001");
            why.accept();
            wait(browser).until(x -> x.findElement(By.id("message")).getText().equals("Voided " + dispenserName + " number 3."));
            assertThat(d.register()).filteredOn(n -> n.number() == 3).singleElement().satisfies(n -> {
                assertThat(n.voidedBy()).isEqualTo("operator");
                assertThat(n.voidReason()).isEqualTo("duplicate of INV-0001");
            });
            wait(browser).until(x -> x.findElement(By.xpath("//table[@id='dispensers']//tr[td[1]='" + dispenserName + "']"))
                    .getText().contains(" 2 none none"));

            // Issue 43: the refresh every two seconds kept nothing selected (every table was rebuilt).
            org.openqa.selenium.JavascriptExecutor js = (org.openqa.selenium.JavascriptExecutor) browser;
            Object selected = js.executeScript("const td = [...document.querySelectorAll('#object-locks tbody td')]"
                    + ".find(c => c.textContent === 'review'); const r = document.createRange(); r.selectNodeContents(td);"
                    + " getSelection().removeAllRanges(); getSelection().addRange(r); return getSelection().toString();");
            assertThat(selected).isEqualTo("review");
            for (int refreshes = 0; refreshes < 2; refreshes++) {
                String before = browser.findElement(By.id("refreshed")).getText();
                wait(browser).until(x -> !x.findElement(By.id("refreshed")).getText().equals(before));
            }
            assertThat(js.executeScript("return getSelection().toString()")).as("the selection, two refreshes later").isEqualTo("review");

            // Live: a lock taken elsewhere shows up without a reload.
            engine.session("bob").editLocks().tryLock(EditResource.paragraph("wiki", id, article.paragraphs().get(1).id()));
            tableShows(browser, "edit-locks", "bob");

            // The audit trail of alice's paragraph, from its row.
            wait(browser).until(x -> {
                x.findElement(By.xpath("//table[@id='edit-locks']//tr[td[3]='alice']//button[@class='show-audit']")).click();
                return true;
            });
            tableShows(browser, "audit", "alice", "acquire", "granted", "wiki:" + id + "#" + article.paragraphs().get(0).id());
            assertThat(browser.findElements(By.cssSelector("button.break-lock"))).as("no lock-breaking role, no break").isEmpty();

            Path shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
            Files.copy(shot, Path.of("target", "console.png"), StandardCopyOption.REPLACE_EXISTING);
        } finally {
            tree.unlock();
            engine.changes().unregisterClient(client);
        }
    }

    /**
     * Issue 43: an operator with the lock-breaking role ends an abandoned edit lock from the console,
     * after confirming with a reason (Cancel changes nothing); the holder's page hears who broke it
     * and why at its next heartbeat and keeps the typed text; the audit trail holds the break.
     */
    @Test
    void aLockBreakerBreaksAnAbandonedEditLock_withAReason_andTheHoldersPageIsToldWhoAndWhy() throws Exception {
        String id = "abandoned-" + UUID.randomUUID().toString().substring(0, 6);
        Article article = engine.session("setup").editLocks().createArticle("quick", id, "<p>Left open.</p><p>Other.</p>");
        String pid = article.paragraphs().get(0).id();
        WebDriver alice = open("alice", "/edit/quick/" + id);
        WebDriver breaker = null;
        try {
            wait(alice).until(x -> {
                x.findElement(By.cssSelector(".para[data-pid='" + pid + "'] button.edit-para")).click();
                return true;
            });
            wait(alice).until(ExpectedConditions.visibilityOfElementLocated(By.id("editor")));
            alice.findElement(By.id("editor-text")).sendKeys(" And typed.");

            breaker = open("breaker");
            tableShows(breaker, "edit-locks", "quick:" + id, "“Left open.” (" + pid + ")", "alice");
            By breakButton = By.xpath("//table[@id='edit-locks']//tr[td[1]='quick:" + id + "']//button[@class='break-lock']");
            WebDriver b = breaker;
            wait(b).until(x -> {
                x.findElement(breakButton).click();
                return true;
            });
            wait(b).until(ExpectedConditions.alertIsPresent()).dismiss(); // Cancel: nothing happens
            assertThat(engine.editLocks().status(EditResource.article("quick", id)).paragraphLocks()).singleElement()
                    .satisfies(l -> assertThat(l.holder()).isEqualTo("alice"));

            wait(b).until(x -> {
                x.findElement(breakButton).click();
                return true;
            });
            org.openqa.selenium.Alert prompt = wait(b).until(ExpectedConditions.alertIsPresent());
            assertThat(prompt.getText()).startsWith("Break alice's edit lock on quick:" + id + ", “Left open.” (" + pid + ")?");
            prompt.sendKeys("alice is away; the paragraph is needed");
            prompt.accept();
            wait(b).until(x -> x.findElement(By.id("message")).getText().equals("Broke alice's edit lock on quick:" + id
                    + ", “Left open.” (" + pid + ")."));
            wait(b).until(x -> !x.findElement(By.cssSelector("#edit-locks tbody")).getText().contains("quick:" + id));

            wait(alice).until(x -> {
                String text = x.findElement(By.id("message")).getText();
                return text.contains("was broken by breaker") && text.contains(": alice is away; the paragraph is needed")
                        && text.contains("Your text is kept below");
            });
            assertThat(alice.findElement(By.id("kept-text")).getText()).isEqualTo("Left open. And typed.");
            assertThat(engine.editLocks().audit("quick:" + id + "#" + pid, 10)).anySatisfy(e -> {
                assertThat(e.user()).isEqualTo("breaker");
                assertThat(e.operation()).isEqualTo("break");
                assertThat(e.detail()).endsWith("of alice: alice is away; the paragraph is needed");
            });
        } finally {
            alice.quit();
            if (breaker != null) {
                breaker.quit();
            }
        }
    }

    /**
     * Issue 43: from the console a lock breaker breaks a hung job's tree lock and an abandoned
     * cooperative lock, each confirmed with a reason; the holders are told at their next heartbeat or
     * save, and the page lists the breaks.
     */
    @Test
    void aLockBreakerBreaksATreeLockAndACooperativeLock_andThePageListsTheBreaks() throws Exception {
        String unique = UUID.randomUUID().toString().substring(0, 6);
        TreeLockHandle tree = engine.session("nightly").treeLocks()
                .tryLock(TreeLockRequest.exclusive(TreePath.root("plant", "hung-" + unique))).orElseThrow();
        String cls = "Page" + unique;
        ObjectStore importer = engine.session("importer").objectStore();
        importer.defineClass(cls, c -> c.integer32("Counter"));
        CustomObject o = importer.createCustomObject(cls);
        o.lock(3600, "import " + unique);
        o.save(RefreshMode.REFRESH);
        WebDriver breaker = open("breaker");
        try {
            tableShows(breaker, "tree-locks", "hung-" + unique);
            breakFromThePage(breaker, "//table[@id='tree-locks']//tr[contains(td[2], 'hung-" + unique + "')]//button[@class='break-lock']",
                    "Break nightly's tree lock on ", "the job hung at midnight", "Broke nightly's tree lock on ");
            assertThat(catchThrowable(tree::heartbeat)).hasMessageContaining("was broken by breaker at ")
                    .hasMessageEndingWith(": the job hung at midnight");

            tableShows(breaker, "object-locks", o.getId().toString());
            breakFromThePage(breaker, "//table[@id='object-locks']//tr[contains(td[1], '" + o.getId() + "')]//button[@class='break-lock']",
                    "Break importer's cooperative lock on " + cls + " {" + o.getId() + "}?", "the import crashed",
                    "Broke importer's cooperative lock on " + cls + " {" + o.getId() + "}.");
            o.getProperties().putValue("Counter", 1);
            assertThat(catchThrowable(() -> o.save(RefreshMode.REFRESH))).hasMessageContaining("was broken by breaker at ")
                    .hasMessageEndingWith(": the import crashed");
            tableShows(breaker, "lock-breaks", "Tree lock", "nightly", "the job hung at midnight", "Cooperative lock", "importer",
                    cls + " {" + o.getId() + "}", "the import crashed");
        } finally {
            breaker.quit();
        }
    }

    /** Clicks the break button at {@code button}, cancels once (nothing happens), then confirms with {@code reason}. */
    private static void breakFromThePage(WebDriver d, String button, String asked, String reason, String said) {
        wait(d).until(x -> {
            x.findElement(By.xpath(button)).click();
            return true;
        });
        wait(d).until(ExpectedConditions.alertIsPresent()).dismiss();
        assertThat(d.findElements(By.xpath(button))).as("Cancel breaks nothing").isNotEmpty();
        wait(d).until(x -> {
            x.findElement(By.xpath(button)).click();
            return true;
        });
        org.openqa.selenium.Alert prompt = wait(d).until(ExpectedConditions.alertIsPresent());
        assertThat(prompt.getText()).startsWith(asked);
        prompt.sendKeys(reason);
        prompt.accept();
        wait(d).until(x -> x.findElement(By.id("message")).getText().startsWith(said));
        wait(d).until(x -> x.findElements(By.xpath(button)).isEmpty());
    }

    /**
     * Issue 43, item 2: with 1,000 locks the console showed the oldest 500 and said nothing of the
     * rest. Now, with 1,000 and then 100,000 edit locks, each table shows a page of 50 and the total,
     * pages on, finds a holder's locks and a lock by its id, and the page stays short.
     */
    @Test
    void withAThousandAndAHundredThousandLocks_theConsoleShowsAPageAndTheTotal_andFindsALockByItsId() throws Exception {
        String prefix = "big-" + UUID.randomUUID().toString().substring(0, 6);
        seedEditLocks(prefix, 0, 1_000);
        WebDriver op = open("operator");
        try {
            filter(op, prefix, "", "");
            pagerShows(op, "edit", "showing 1–50 of 1,000");
            assertThat(op.findElements(By.cssSelector("#edit-locks tbody tr"))).hasSize(50);
            op.findElement(By.cssSelector("#edit-locks-pager .page-next")).click();
            pagerShows(op, "edit", "showing 51–100 of 1,000");
            filter(op, prefix, "ed7", "");
            pagerShows(op, "edit", "showing 1–20 of 20");
            tableShows(op, "edit-locks", "ed7");
            String lockId = oneLockId(prefix);
            filter(op, "", "", lockId);
            pagerShows(op, "edit", "showing 1–1 of 1");

            seedEditLocks(prefix, 1_000, 100_000);
            filter(op, prefix, "", "");
            pagerShows(op, "edit", "showing 1–50 of 100,000");
            op.findElement(By.cssSelector("#edit-locks-pager .page-next")).click();
            pagerShows(op, "edit", "showing 51–100 of 100,000");
            filter(op, prefix, "ed7", "");
            pagerShows(op, "edit", "showing 1–50 of 2,000");
            filter(op, "", "", lockId);
            pagerShows(op, "edit", "showing 1–1 of 1");
            Number height = (Number) ((org.openqa.selenium.JavascriptExecutor) op).executeScript("return document.body.scrollHeight");
            assertThat(height.intValue()).as("a page of rows, not a hundred thousand").isLessThan(4_000);
        } finally {
            op.quit();
            try (Connection c = DriverManager.getConnection(url, "sa", "");
                 PreparedStatement delete = c.prepareStatement("DELETE FROM ts_edit_lock WHERE resource_id LIKE ?")) {
                delete.setString(1, "wiki:" + prefix + "%");
                delete.executeUpdate();
            }
        }
    }

    /**
     * Valid edit locks numbered {@code from} to {@code to} (exclusive) on {@code prefix}'s articles, 100
     * paragraphs each, held by 50 editors, written straight into the lock table: taking 100,000 through
     * the engine would take minutes, and only the listing is tested here.
     */
    private void seedEditLocks(String prefix, int from, int to) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "sa", "");
             PreparedStatement insert = c.prepareStatement("INSERT INTO ts_edit_lock (resource_id, lock_id, user_id, start_time, state,"
                     + " heart_beat_time, usn) SELECT 'wiki:' || ? || '-' || LPAD(CAST(X / 100 AS VARCHAR), 4, '0') || '#p'"
                     + " || LPAD(CAST(MOD(X, 100) AS VARCHAR), 3, '0'), CAST(RANDOM_UUID() AS VARCHAR), 'ed' || MOD(X, 50),"
                     + " CURRENT_TIMESTAMP, 1, CURRENT_TIMESTAMP, 0 FROM SYSTEM_RANGE(?, ?)")) {
            insert.setString(1, prefix);
            insert.setInt(2, from);
            insert.setInt(3, to - 1);
            assertThat(insert.executeUpdate()).isEqualTo(to - from);
        }
    }

    private String oneLockId(String prefix) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "sa", "");
             PreparedStatement select = c.prepareStatement("SELECT lock_id FROM ts_edit_lock WHERE resource_id = ?")) {
            select.setString(1, "wiki:" + prefix + "-0003#p007");
            try (ResultSet r = select.executeQuery()) {
                assertThat(r.next()).isTrue();
                return r.getString(1);
            }
        }
    }

    /** Fills the lock filter (all kinds, oldest first) and shows. */
    private static void filter(WebDriver d, String contains, String holder, String lockId) {
        for (String[] field : new String[][] {{"filter-contains", contains}, {"filter-holder", holder}, {"filter-lock-id", lockId}}) {
            d.findElement(By.id(field[0])).clear();
            d.findElement(By.id(field[0])).sendKeys(field[1]);
        }
        d.findElement(By.id("filter-button")).click();
    }

    private static void pagerShows(WebDriver d, String kind, String text) {
        wait(d).until(x -> x.findElement(By.cssSelector("#" + kind + "-locks-pager .shown")).getText().equals(text));
    }

    @Test
    void aUserWithoutTheAdminRole_seesNoDispensers_norFeedClients_andIsToldWhy() throws Exception {
        WebDriver alice = open("alice");
        try {
            wait(alice).until(x -> x.findElement(By.id("dispensers-refused")).getText().contains("dispenser-admin"));
            // Issue 43: an editor sees the locks she holds only, and no feed clients, and is told so.
            wait(alice).until(x -> x.findElement(By.id("feed-clients-refused")).getText().contains("operator"));
            assertThat(alice.findElement(By.id("scope")).isDisplayed()).isTrue();
            assertThat(alice.findElement(By.id("feed-clients")).isDisplayed()).isFalse();
        } finally {
            alice.quit();
        }
    }
}
