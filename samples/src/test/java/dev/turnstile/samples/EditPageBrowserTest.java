package dev.turnstile.samples;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.editlock.Article;
import dev.turnstile.api.editlock.EditLockConfig;
import dev.turnstile.api.editlock.EditLocksConfig;
import dev.turnstile.api.editlock.EditResource;
import dev.turnstile.samples.server.ServerUsers;
import dev.turnstile.samples.server.TurnstileServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two users in two real browser sessions (Debian's headless Chromium through chromedriver) play
 * the paper's cases 2, 7, 8 and 9 on the article page, and save a paragraph; case 7 as a user
 * does it (the article editor shows the held paragraph read-only, and a tampered save of it is
 * refused); an unchanged paragraph save that keeps its markup byte for byte; a reload; 北京.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("browser")
class EditPageBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private ContentEngine engine;
    private TurnstileServer server;
    private ServerUsers users;
    private final List<WebDriver> browsers = new ArrayList<>();

    @BeforeAll
    void start() {
        engine = ContentEngine.open(EngineConfig.builder()
                .jdbcUrl("jdbc:h2:file:" + Path.of("target", "h2", "browser").toAbsolutePath() + ";AUTO_SERVER=TRUE")
                .editLocks(EditLocksConfig.builder()
                        .type("wiki", new EditLockConfig(Duration.ofMinutes(2), Duration.ofHours(1), true, List.of("p", "pre"), 20))
                        // heartbeats every 2 s: a lapse reaches the page within one interval
                        .type("quick", new EditLockConfig(Duration.ofSeconds(6), Duration.ofHours(1), true, List.of("p", "pre"), 20)).build())
                .build());
        Map<String, Set<String>> demo = new LinkedHashMap<>();
        demo.put("alice", Set.of());
        demo.put("bob", Set.of());
        users = ServerUsers.demo(demo);
        server = new TurnstileServer(engine, users).start(0);
    }

    @AfterAll
    void stop() {
        browsers.forEach(WebDriver::quit);
        server.close();
        engine.close();
    }

    private WebDriver browser(String user, String page) throws Exception {
        WebDriver driver = loggedIn(user, page);
        wait(driver).until(ExpectedConditions.textToBe(By.id("me"), user));
        return driver;
    }

    /** A browser that opened {@code page} and sent the login form, whatever the page then shows. */
    private WebDriver loggedIn(String user, String page) throws Exception {
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + Files.createTempDirectory("chromium-" + user));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File("/usr/bin/chromedriver"))
                .usingAnyFreePort().build();
        WebDriver driver = new ChromeDriver(service, options);
        browsers.add(driver);
        driver.get("http://127.0.0.1:" + server.port() + page);
        wait(driver).until(ExpectedConditions.visibilityOfElementLocated(By.id("login-user"))).sendKeys(user);
        driver.findElement(By.id("login-password")).sendKeys(users.passwords().get(user));
        driver.findElement(By.id("login-button")).click();
        return driver;
    }

    /** Waits ignoring stale elements: the page re-renders its paragraphs every 1.5 s. */
    private static WebDriverWait wait(WebDriver d) {
        WebDriverWait w = new WebDriverWait(d, WAIT);
        w.ignoring(StaleElementReferenceException.class);
        return w;
    }

    private static void clickEdit(WebDriver d, String pid) {
        wait(d).until(x -> {
            paragraph(x, pid).findElement(By.cssSelector("button.edit-para")).click();
            return true;
        });
    }

    /** The editor's text replaced by {@code text} and saved, as the page says. */
    private static void replaceAndSave(WebDriver d, String text) {
        WebElement editor = d.findElement(By.id("editor-text"));
        editor.clear();
        editor.sendKeys(text);
        d.findElement(By.id("save")).click();
        message(d, "Saved");
    }

    private static WebElement paragraph(WebDriver d, String pid) {
        return d.findElement(By.cssSelector(".para[data-pid='" + pid + "']"));
    }

    private static void message(WebDriver d, String... parts) {
        wait(d).until(driver -> {
            String text = driver.findElement(By.id("message")).getText();
            for (String p : parts) {
                if (!text.contains(p)) {
                    return false;
                }
            }
            return true;
        });
    }

    @Test
    void twoUsersInTwoBrowsers_playCases2_7_8_9_andSaveAParagraph() throws Exception {
        String id = "browser-" + UUID.randomUUID().toString().substring(0, 8);
        Article article = engine.session("setup").editLocks().createArticle("wiki", id,
                "<p>Beijing is the capital.</p><p>Shanghai is large.</p><p>Shenzhen is young.</p>");
        String p2 = article.paragraphs().get(1).id();
        String p3 = article.paragraphs().get(2).id();
        String page = "/edit/wiki/" + id;
        WebDriver alice = browser("alice", page);
        WebDriver bob = browser("bob", page);

        // Case 2: alice edits the article; bob asks for it and is refused, naming alice.
        alice.findElement(By.id("edit-article")).click();
        wait(alice).until(ExpectedConditions.visibilityOfElementLocated(By.id("editor")));
        bob.findElement(By.id("edit-article")).click();
        message(bob, "Refused", "alice");
        assertThat(bob.findElement(By.id("editor")).isDisplayed()).isFalse();
        alice.findElement(By.id("cancel")).click();
        wait(alice).until(ExpectedConditions.invisibilityOfElementLocated(By.id("editor")));

        // Case 8: alice edits paragraph 2; bob sees it greyed with her name and has no Edit button on it.
        clickEdit(alice, p2);
        wait(alice).until(ExpectedConditions.visibilityOfElementLocated(By.id("editor")));
        wait(bob).until(d -> paragraph(d, p2).getAttribute("class").contains("locked-other")
                && paragraph(d, p2).getText().contains("being edited by alice")
                && paragraph(d, p2).findElements(By.cssSelector("button.edit-para")).isEmpty());
        assertThat(engine.session("bob").editLocks().tryLock(EditResource.paragraph("wiki", id, p2)).refused().holder())
                .as("and the server refuses bob's request for it").isEqualTo("alice");

        // Case 9: bob edits paragraph 3 meanwhile.
        clickEdit(bob, p3);
        wait(bob).until(ExpectedConditions.visibilityOfElementLocated(By.id("editor")));
        message(bob, "Editing a paragraph");
        bob.findElement(By.id("cancel")).click();
        wait(bob).until(ExpectedConditions.invisibilityOfElementLocated(By.id("editor")));

        // Case 7: bob asks for the whole article: granted, with paragraph 2 still greyed as alice's.
        bob.findElement(By.id("edit-article")).click();
        message(bob, "Editing the article");
        wait(bob).until(d -> paragraph(d, p2).getText().contains("being edited by alice"));
        bob.findElement(By.id("cancel")).click();

        // alice saves her paragraph: the text reaches the article and her lock is released.
        replaceAndSave(alice, "Shanghai is the largest city.");
        assertThat(engine.editLocks().article(EditResource.article("wiki", id)).html()).contains("Shanghai is the largest city.");
        wait(bob).until(d -> !paragraph(d, p2).getAttribute("class").contains("locked-other"));
    }

    private static Object js(WebDriver d, String script, Object... args) {
        return ((org.openqa.selenium.JavascriptExecutor) d).executeScript(script, args);
    }

    @Test
    void case7AsAUserDoesIt_theHeldParagraphIsReadOnlyInTheArticleEditor_andNoWriteIsLost() throws Exception {
        String id = "case7-" + UUID.randomUUID().toString().substring(0, 8);
        EditResource resource = EditResource.article("wiki", id);
        Article article = engine.session("setup").editLocks().createArticle("wiki", id, "<h2>Cities</h2><p>Beijing is <b>the capital</b>.</p>"
                + "<p>Shanghai is large.</p><p>Shenzhen is <a href=\"https://example.org/\">young</a>.</p>");
        String p1 = article.paragraphs().get(0).id();
        String p2 = article.paragraphs().get(1).id();
        String page = "/edit/wiki/" + id;
        WebDriver alice = browser("alice", page);
        WebDriver bob = browser("bob", page);
        wait(bob).until(d -> d.findElement(By.cssSelector("#paragraphs h2")).getText().equals("Cities"));

        // bob saves paragraph 1 unchanged: the article stays byte for byte as it was, markup and all.
        clickEdit(bob, p1);
        wait(bob).until(ExpectedConditions.visibilityOfElementLocated(By.id("editor")));
        wait(bob).until(d -> d.findElement(By.cssSelector("#editor-text b")).getText().equals("the capital"));
        bob.findElement(By.id("save")).click();
        message(bob, "Saved");
        Article unchanged = engine.editLocks().article(resource);
        assertThat(unchanged.html()).isEqualTo(article.html());
        assertThat(unchanged.usn()).isEqualTo(article.usn());

        clickEdit(alice, p2);
        wait(alice).until(ExpectedConditions.visibilityOfElementLocated(By.id("editor")));
        bob.findElement(By.id("edit-article")).click();
        message(bob, "Editing the article");
        WebElement held = bob.findElement(By.cssSelector("#editor-text [data-pid='" + p2 + "']"));
        assertThat(held.getAttribute("contenteditable")).isEqualTo("false");
        assertThat(held.getAttribute("class")).contains("locked-other");
        assertThat(js(bob, "return arguments[0].isContentEditable", held)).isEqualTo(false);

        // Going around the page (the DOM changed by hand) does not get past the server.
        js(bob, "arguments[0].textContent = 'Shanghai, tampered by bob.'", held);
        bob.findElement(By.id("save")).click();
        message(bob, "Not saved", "paragraph " + p2, "alice");
        assertThat(bob.findElement(By.id("editor-text")).getText()).contains("tampered by bob");
        bob.findElement(By.id("cancel")).click();
        wait(bob).until(ExpectedConditions.invisibilityOfElementLocated(By.id("editor")));

        // bob edits paragraph 1 in the article editor and saves; alice saves paragraph 2: both land.
        bob.findElement(By.id("edit-article")).click();
        message(bob, "Editing the article");
        WebElement first = bob.findElement(By.cssSelector("#editor-text [data-pid='" + p1 + "'] b"));
        first.click();
        first.sendKeys(" city");
        bob.findElement(By.id("save")).click();
        message(bob, "Saved");
        replaceAndSave(alice, "Shanghai is the largest city.");
        Article end = engine.editLocks().article(resource);
        assertThat(end.paragraphs()).extracting(p -> p.id()).startsWith(p1, p2);
        assertThat(end.paragraphs().get(0).html()).contains("city").contains("<b>");
        assertThat(end.paragraphs().get(1).html()).isEqualTo("<p data-pid=\"" + p2 + "\">Shanghai is the largest city.</p>");
        assertThat(end.paragraphs().get(2).html()).isEqualTo(article.paragraphs().get(2).html());

        // A reload keeps who is signed in, and a lock of one's own (taken in another tab) is not greyed.
        var own = engine.session("alice").editLocks().tryLock(EditResource.paragraph("wiki", id, p1)).granted().lock();
        alice.navigate().refresh();
        wait(alice).until(ExpectedConditions.textToBe(By.id("me"), "alice"));
        wait(alice).until(d -> paragraph(d, p1).getAttribute("class").contains("mine"));
        assertThat(paragraph(alice, p1).getAttribute("class")).doesNotContain("locked-other");
        engine.session("alice").editLocks().unlock(own.lockToken());
    }

    /**
     * Issue 43, case 7's other order: alice saves the paragraph she holds after bob loaded the whole
     * article. bob's save is refused (the article moved on) — and before, his editor still showed
     * alice's paragraph as it was, a second save was refused again, and Cancel lost his text. Now his
     * editor brings her paragraph up to date, keeps what he typed, and his next save lands.
     */
    @Test
    void case7TheOtherOrder_aParagraphSavedAfterTheArticleWasLoaded_keepsTheArticleEditorsText() throws Exception {
        String id = "case7b-" + UUID.randomUUID().toString().substring(0, 8);
        EditResource resource = EditResource.article("wiki", id);
        Article article = engine.session("setup").editLocks().createArticle("wiki", id,
                "<p>Beijing is the capital.</p><p>Shanghai is large.</p><p>Shenzhen is young.</p>");
        String p1 = article.paragraphs().get(0).id();
        String p2 = article.paragraphs().get(1).id();
        String page = "/edit/wiki/" + id;
        WebDriver alice = browser("alice", page);
        WebDriver bob = browser("bob", page);
        clickEdit(alice, p2);
        wait(alice).until(ExpectedConditions.visibilityOfElementLocated(By.id("editor")));
        bob.findElement(By.id("edit-article")).click();
        message(bob, "Editing the article");
        WebElement first = bob.findElement(By.cssSelector("#editor-text [data-pid='" + p1 + "']"));
        first.click();
        first.sendKeys(Keys.END, " Bob was here.");

        replaceAndSave(alice, "Shanghai is the largest city.");

        bob.findElement(By.id("save")).click();
        message(bob, "Not saved", "changed since you loaded it", "brought up to date");
        String editor = bob.findElement(By.id("editor-text")).getText();
        assertThat(editor).as("bob's text, kept").contains("Bob was here.");
        assertThat(editor).as("alice's paragraph as she saved it").contains("Shanghai is the largest city.").doesNotContain("Shanghai is large.");
        bob.findElement(By.id("save")).click();
        message(bob, "Saved");

        Article end = engine.editLocks().article(resource);
        assertThat(end.paragraphs()).extracting(p -> p.id()).startsWith(p1, p2);
        assertThat(end.paragraphs().get(0).html()).contains("Beijing is the capital.").contains("Bob was here.");
        assertThat(end.paragraphs().get(1).html()).isEqualTo("<p data-pid=\"" + p2 + "\">Shanghai is the largest city.</p>");
        assertThat(end.paragraphs().get(2).html()).isEqualTo(article.paragraphs().get(2).html());
    }

    /** Issue 43: Enter in the paragraph editor was stored as a bare newline, which the article shows as a space. */
    @Test
    void enterInAParagraph_isALineBreak_inAPreItsNewline() throws Exception {
        String id = "lines-" + UUID.randomUUID().toString().substring(0, 6);
        Article article = engine.session("setup").editLocks().createArticle("wiki", id, "<p>one</p><pre>a</pre>");
        String p1 = article.paragraphs().get(0).id();
        String pre = article.paragraphs().get(1).id();
        WebDriver alice = browser("alice", "/edit/wiki/" + id);
        wait(alice).until(d -> paragraph(d, p1).getText().contains("one"));
        clickEdit(alice, p1);
        wait(alice).until(ExpectedConditions.visibilityOfElementLocated(By.id("editor")));
        WebElement text = alice.findElement(By.id("editor-text"));
        text.clear();
        text.sendKeys("first", Keys.ENTER, "second");
        alice.findElement(By.id("save")).click();
        message(alice, "Saved");
        assertThat(engine.editLocks().article(EditResource.article("wiki", id)).paragraphs().get(0).html())
                .contains("first<br>second").doesNotContain("\n");
        wait(alice).until(d -> paragraph(d, p1).getText().contains("first\nsecond"));

        clickEdit(alice, pre);
        wait(alice).until(ExpectedConditions.visibilityOfElementLocated(By.id("editor")));
        text = alice.findElement(By.id("editor-text"));
        text.sendKeys(Keys.END, Keys.ENTER, "b");
        alice.findElement(By.id("save")).click();
        message(alice, "Saved");
        assertThat(engine.editLocks().article(EditResource.article("wiki", id)).paragraphs().get(1).html()).contains("a\nb");
    }

    @Test
    void beijing_endToEnd_throughTheUrlEncodedPage() throws Exception {
        String id = "北京-" + UUID.randomUUID().toString().substring(0, 6);
        Article article = engine.session("setup").editLocks().createArticle("wiki", id, "<p>北京是中国的首都。</p>");
        String p1 = article.paragraphs().get(0).id();
        WebDriver alice = browser("alice", "/edit/wiki/" + java.net.URLEncoder.encode(id, java.nio.charset.StandardCharsets.UTF_8));
        wait(alice).until(d -> paragraph(d, p1).getText().contains("北京是中国的首都。"));
        clickEdit(alice, p1);
        wait(alice).until(ExpectedConditions.visibilityOfElementLocated(By.id("editor")));
        replaceAndSave(alice, "北京，中国的首都。");
        assertThat(engine.editLocks().article(EditResource.article("wiki", id)).paragraphs().get(0).html()).contains("北京，中国的首都。");
        assertThat(engine.editLocks().status(EditResource.article("wiki", id)).paragraphLocks()).isEmpty();
    }

    @Test
    void aLapse_keepsTheTypedText_andEditingAgainDoesNotOverwriteIt() throws Exception {
        String id = "lapse-" + UUID.randomUUID().toString().substring(0, 8);
        Article article = engine.session("setup").editLocks().createArticle("quick", id, "<p>One.</p><p>Two.</p>");
        String p1 = article.paragraphs().get(0).id();
        String p2 = article.paragraphs().get(1).id();
        WebDriver alice = browser("alice", "/edit/quick/" + id);
        clickEdit(alice, p1);
        wait(alice).until(ExpectedConditions.visibilityOfElementLocated(By.id("editor")));
        WebElement text = alice.findElement(By.id("editor-text"));
        text.clear();
        text.sendKeys("Typed for a long time.");
        // The lock ends behind the page's back (as a lapse or a takeover does): its next heartbeat fails.
        String lockId = engine.editLocks().status(EditResource.article("quick", id)).paragraphLocks().get(0).lockToken();
        engine.session("alice").editLocks().unlock(lockId);
        new WebDriverWait(alice, Duration.ofSeconds(40)).until(ExpectedConditions.visibilityOfElementLocated(By.id("kept")));
        message(alice, "lapsed", "Your text is kept below");
        assertThat(alice.findElement(By.id("kept-text")).getText()).isEqualTo("Typed for a long time.");
        clickEdit(alice, p2);
        message(alice, "Editing a paragraph");
        assertThat(alice.findElement(By.id("kept-text")).getText()).as("still there after editing again").isEqualTo("Typed for a long time.");
        alice.findElement(By.id("cancel")).click();
        alice.findElement(By.id("dismiss")).click();
        wait(alice).until(ExpectedConditions.invisibilityOfElementLocated(By.id("kept")));
    }

    @Test
    void anUnknownArticle_showsTheError() throws Exception {
        String id = "no-such-" + UUID.randomUUID().toString().substring(0, 8);
        WebDriver bob = loggedIn("bob", "/edit/wiki/" + id);
        message(bob, "E_OBJECT_NOT_FOUND", "There is no article wiki:" + id);
    }
}
