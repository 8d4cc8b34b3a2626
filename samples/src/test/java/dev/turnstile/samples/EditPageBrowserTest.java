package dev.turnstile.samples;

import dev.turnstile.api.Article;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EditLockConfig;
import dev.turnstile.api.EditResource;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.samples.server.ServerUsers;
import dev.turnstile.samples.server.TurnstileServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two users in two real browser sessions (Debian's headless Chromium through chromedriver) play
 * the paper's cases 2, 7, 8 and 9 on the article page, and save a paragraph.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
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
                .editLockType("wiki", new EditLockConfig(Duration.ofMinutes(2), Duration.ofHours(1), true, List.of("p", "pre"), 20))
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
        wait(driver).until(ExpectedConditions.textToBe(By.id("me"), user));
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
        Article article = engine.editLocks().createArticle("setup", "wiki", id,
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
        assertThat(engine.editLocks().acquire("bob", EditResource.paragraph("wiki", id, p2)).holder())
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
        WebElement text = alice.findElement(By.id("editor-text"));
        text.clear();
        text.sendKeys("Shanghai is the largest city.");
        alice.findElement(By.id("save")).click();
        message(alice, "Saved");
        assertThat(engine.editLocks().article(EditResource.article("wiki", id)).html()).contains("Shanghai is the largest city.");
        wait(bob).until(d -> !paragraph(d, p2).getAttribute("class").contains("locked-other"));
    }
}
