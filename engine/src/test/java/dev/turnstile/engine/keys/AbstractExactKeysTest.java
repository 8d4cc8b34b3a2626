package dev.turnstile.engine.keys;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.changes.ChangeFilter;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.changes.DeliveryMode;
import dev.turnstile.api.editlock.EditResource;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreePath;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Names and keys compare exactly on every database: two names that differ only in case, an
 * accent or a trailing space are two things (MariaDB's default collation made them one).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractExactKeysTest {
    private ContentEngine engine;
    private final String u = UUID.randomUUID().toString().substring(0, 6);

    protected abstract EngineConfig config();

    @BeforeAll
    void open() {
        engine = ContentEngine.open(EngineConfig.from(config()).changes(ChangesConfig.of(true)).build());
    }

    @AfterAll
    void close() {
        engine.close();
    }

    @Test
    void feedClientsDifferingOnlyInCase_areTwoClients_eachWithItsOwnFilter() {
        String lower = "x-case-" + u;
        String upper = "x-CASE-" + u;
        ObjectStore os = engine.session("keys").objectStore();
        os.defineClass("KInvoice" + u, c -> c.string("Title", 10));
        os.defineClass("KOrder" + u, c -> c.string("Title", 10));
        engine.changes().registerClient(lower, ChangeFilter.classes("KInvoice" + u), DeliveryMode.QUEUE);
        engine.changes().registerClient(upper, ChangeFilter.classes("KOrder" + u), DeliveryMode.CALLBACK);
        assertThat(engine.changes().clients()).contains(lower, upper);
        // Each kept its own filter: a change to an invoice is pending for the lower-case client only.
        var invoice = os.createCustomObject("KInvoice" + u);
        invoice.getProperties().putValue("Title", "one");
        invoice.save(dev.turnstile.api.RefreshMode.REFRESH);
        assertThat(engine.changes().lag(lower).pending()).isEqualTo(1);
        assertThat(engine.changes().lag(upper).pending()).isZero();
        engine.changes().unregisterClient(lower);
        assertThat(engine.changes().clients()).contains(upper).doesNotContain(lower);
        engine.changes().unregisterClient(upper);
    }

    @ParameterizedTest
    @CsvSource(value = {"CaseA|casea", "é|e", "Sp|'Sp '"}, delimiter = '|')
    void treeNodesDifferingInCaseAccentOrTrailingSpace_areTwoNodes(String one, String other) {
        TreePath site = TreePath.root("site", "keys-" + u + "-" + one.length() + other.length());
        TreeLockHandle both = engine.session("exact").treeLocks().tryLock(TreeLockRequest.exclusive(Set.of(site.child("workshop", one),
                site.child("workshop", other)))).orElseThrow();
        assertThat(both.nodes()).hasSize(2);
        both.unlock();
    }

    @Test
    void classesDifferingOnlyInCase_areTwoClasses() {
        ObjectStore os = engine.session("keys").objectStore();
        os.defineClass("KeyDoc" + u, c -> c.string("Upper", 10));
        os.defineClass("keydoc" + u, c -> c.string("Lower", 10));
        assertThat(os.getClassDefinition("KeyDoc" + u).getPropertyDefinition("Upper")).isPresent();
        assertThat(os.getClassDefinition("keydoc" + u).getPropertyDefinition("Lower")).isPresent();
        assertThat(os.getClassDefinition("keydoc" + u).getPropertyDefinition("Upper")).isEmpty();
    }

    @Test
    void articlesAndUsersDifferingOnlyInCase_lockApart() {
        engine.session("setup").editLocks().createArticle("wiki", "Beijing-" + u, "<p>one</p>");
        engine.session("setup").editLocks().createArticle("wiki", "beijing-" + u, "<p>two</p>");
        assertThat(engine.session("Alice" + u).editLocks().tryLock(EditResource.article("wiki", "Beijing-" + u)).isGranted()).isTrue();
        assertThat(engine.session("alice" + u).editLocks().tryLock(EditResource.article("wiki", "beijing-" + u)).isGranted()).isTrue();
        assertThat(engine.editLocks().status(EditResource.article("wiki", "beijing-" + u)).articleLock().holder()).isEqualTo("alice" + u);
    }
}
