package dev.turnstile.samples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.Document;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.UpdatingBatch;
import dev.turnstile.api.changes.ChangeDispatcher;
import dev.turnstile.api.changes.ChangeFeed;
import dev.turnstile.api.changes.ChangeFilter;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.changes.ClientLag;
import dev.turnstile.api.changes.DeliveryMode;
import dev.turnstile.api.changes.DispatcherConfig;
import dev.turnstile.api.changes.QueuedChange;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.Dispensers;
import dev.turnstile.api.dispenser.NumberBlock;
import dev.turnstile.api.dispenser.RegisterReport;
import dev.turnstile.api.dispenser.ResetPeriod;
import dev.turnstile.api.editlock.Article;
import dev.turnstile.api.editlock.EditLock;
import dev.turnstile.api.editlock.EditLockConfig;
import dev.turnstile.api.editlock.EditLockResult;
import dev.turnstile.api.editlock.EditLocks;
import dev.turnstile.api.editlock.EditLocksConfig;
import dev.turnstile.api.editlock.EditResource;
import dev.turnstile.api.editlock.SaveResult;
import dev.turnstile.api.retry.Locking;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLockInfo;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreeLocks;
import dev.turnstile.api.treelock.TreeLocksConfig;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.spi.JdbcHostTransactions;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The code of the README and the guides in docs/, as regions that {@link DocsTest} compares with
 * the pages word for word; running them here proves the pages compile and do what they say.
 */
class ReadmeExamplesTest {
    private final EngineConfig config = EngineConfig.builder()
            .jdbcUrl("jdbc:h2:file:" + Path.of("target", "h2", "readme").toAbsolutePath() + ";AUTO_SERVER=TRUE")
            .build();

    @Test
    void firstWriterWins() {
        String outcome;
        // region first-writer-wins
        try (ContentEngine engine = ContentEngine.open(config)) {
            ObjectStore alice = engine.session("alice").objectStore();
            alice.defineClass("Invoice", c -> c.superclass("Document").string("Customer", 100).int64("Amount"));
            Document invoice = alice.createDocument("Invoice");
            invoice.getProperties().putValue("Customer", "ACME");
            invoice.getProperties().putValue("Amount", 1200L);
            invoice.save(RefreshMode.REFRESH);            // one INSERT; USN 0

            ObjectStore bob = engine.session("bob").objectStore();
            Document bobs = bob.fetchDocument("Invoice", invoice.getId(), PropertyFilter.ALL);   // one SELECT

            invoice.getProperties().putValue("Amount", 1300L);
            invoice.save(RefreshMode.REFRESH);            // UPDATE … WHERE id = ? AND usn = 0; USN 1

            bobs.getProperties().putValue("Amount", 900L);
            try {
                bobs.save(RefreshMode.REFRESH);           // still holds USN 0: refused, nothing written
                outcome = "saved";
            } catch (EngineRuntimeException e) {
                outcome = e.getExceptionCode() + " " + e.getRequestedUsn() + "/" + e.getDatabaseUsn();
            }
        }
        // endregion
        assertThat(outcome).isEqualTo("E_OBJECT_MODIFIED 0/1");
    }

    @Test
    void batchAndPreprocessor() {
        try (ContentEngine engine = ContentEngine.open(config)) {
            // region batch-and-preprocessor
            ObjectStore os = engine.session("alice").objectStore();
            os.defineClass("Case", c -> c.string("Title").string("TitleUpper"));
            os.addChangePreprocessor("Case", change ->          // runs inside the saving transaction
                    change.properties().putValue("TitleUpper", change.properties().getStringValue("Title").toUpperCase()));

            UpdatingBatch batch = os.createUpdatingBatch(RefreshMode.REFRESH);
            for (String title : new String[] {"water damage", "stolen bike"}) {
                var c = os.createCustomObject("Case");
                c.getProperties().putValue("Title", title);
                batch.add(c, null);
            }
            batch.updateBatch();                                  // one transaction: both or neither
            // endregion
            assertThat(batch.hasPendingExecute()).isFalse();
        }
    }

    @Test
    void cooperativeLock() {
        EngineConfig withPolicy = EngineConfig.from(config)
                .retry(RetryPoliciesConfig.builder().policy("locks", RetryPolicyConfig.builder().maxAttempts(20).waitDuration(Duration.ofMillis(10)).build()).build())
                .build();
        try (ContentEngine engine = ContentEngine.open(withPolicy)) {
            ObjectStore setup = engine.session("alice").objectStore();
            setup.defineClass("Counter", c -> c.int64("Next"));
            var created = setup.createCustomObject("Counter");
            created.getProperties().putValue("Next", 1L);
            created.save(RefreshMode.REFRESH);
            java.util.UUID counterId = created.getId();
            // region cooperative-lock
            ObjectStore os = engine.session("workflow-7").objectStore();
            RetryPolicy policy = engine.retryPolicies().get("locks");    // configured in turnstile.yaml
            CustomObject counter = os.getCustomObject("Counter", counterId);
            long number = Locking.withLock(counter, 15, "invoice numbering", policy, locked -> {
                long next = locked.getProperties().getInt64Value("Next");   // read under the lock
                locked.getProperties().putValue("Next", next + 1);
                return next;
            });   // round trip 1: lock + fetch; round trip 2: update + unlock
            // endregion
            assertThat(number).isEqualTo(1L);
            assertThat(counter.isLocked()).isFalse();
        }
    }

    @Test
    void treeLocks() {
        try (ContentEngine engine = ContentEngine.open(config)) {
            // region tree-locks
            TreeLocks locks = engine.session("op-4711").treeLocks();     // held as the session's user
            TreePath workshopA = TreePath.parse("site:O/workshop:A");
            TreePath bench1 = workshopA.child("bench", "1");

            TreeLockHandle op = locks.lock(Set.of(bench1), Duration.ofSeconds(10));
            // Bench 1 is ours. Bench 2 and workshop B stay free; workshop A and the site must wait.
            Optional<TreeLockHandle> upgrade = engine.session("upgrade").treeLocks()
                    .tryLock(TreeLockRequest.exclusive(workshopA));   // empty
            op.heartbeat();                                   // renews the lease (30 s by default) during long work
            op.unlock();

            // The operation document a host already has: every leaf is locked, all at once or none.
            TreeLockRequest execution = locks.parseRequest("""
                    <site id="O">
                      <workshop id="A"><bench id="1"/><bench id="2"/></workshop>
                      <workshop id="B"><bench id="4" mode="S"/></workshop>
                    </site>""");
            Optional<TreeLockHandle> held = locks.tryLock(execution);
            List<TreeLockInfo> inSite = locks.status(TreePath.parse("site:O"));   // who holds what, oldest first
            held.ifPresent(TreeLockHandle::unlock);
            // endregion
            assertThat(upgrade).isEmpty();
            assertThat(held).isPresent();
            assertThat(inSite).extracting(TreeLockInfo::holder).containsExactly("op-4711");
            assertThat(execution.nodes()).hasSize(3);
        }
    }

    @Test
    void configurationBySection() {
        String secret = "s3cret";
        // region configuration-by-section
        EngineConfig config = EngineConfig.builder()
                .jdbcUrl("jdbc:postgresql://db/ecm").username("ecm").password(secret)
                .treeLocks(TreeLocksConfig.builder().lease(Duration.ofMinutes(2)).build())
                .changes(ChangesConfig.of(true))
                .build();
        // endregion
        assertThat(config.treeLocks().lease()).isEqualTo(Duration.ofMinutes(2));
        assertThat(config.treeLocks().retryPolicy()).isEqualTo(TreeLocksConfig.DEFAULT_RETRY_POLICY);
        assertThat(config.changes().enabled()).isTrue();
        assertThat(config.locks()).isEqualTo(dev.turnstile.api.LockConfig.ofDefaults());
    }

    @Test
    void editLocks() {
        EngineConfig wiki = EngineConfig.from(config).editLocks(EditLocksConfig.builder().type("wiki", new EditLockConfig(Duration.ofMinutes(2),
                Duration.ofHours(1), true, List.of("p", "pre"), 20)).build()).build();
        try (ContentEngine engine = ContentEngine.open(wiki)) {
            String id = "beijing-" + UUID.randomUUID().toString().substring(0, 8);
            // region edit-locks
            EditLocks alice = engine.session("alice").editLocks();  // types and settings: editLocks.types in turnstile.yaml
            Article page = alice.createArticle("wiki", id, "<p>Beijing is a city.</p><p>It is old.</p>");
            EditResource second = EditResource.paragraph("wiki", id, page.paragraphs().get(1).id());

            EditLock mine = alice.tryLock(second).granted().lock();                 // the lock token, the expiry
            EditLockResult theirs = engine.session("bob").editLocks().tryLock(second);
            if (theirs instanceof EditLockResult.Refused refused) {
                System.out.println(refused.reason());         // being edited by alice since …
            }
            alice.heartbeat(mine.lockToken());                // the page sends one every heartbeat / 3
            SaveResult saved = alice.save(mine.lockToken(), "It is very old.", page.usn());
            alice.unlock(mine.lockToken());
            // endregion
            assertThat(theirs.refused().holder()).isEqualTo("alice");
            assertThat(saved.saved()).isTrue();
            assertThat(alice.article(EditResource.article("wiki", id)).html()).contains("It is very old.");
        }
    }

    @Test
    void changeFeed() {
        try (ContentEngine engine = ContentEngine.open(EngineConfig.from(config).changes(ChangesConfig.of(true)).build())) {
            engine.session("alice").objectStore().defineClass("PurchaseOrder", c -> c.integer32("Amount"));
            List<UUID> evicted = new java.util.ArrayList<>();
            // region change-feed
            ChangeFeed feed = engine.changes();                   // records changes when changes.enabled is true
            feed.registerClient("search-index", ChangeFilter.classes("PurchaseOrder"), DeliveryMode.QUEUE);
            feed.registerClient("price-cache", ChangeFilter.classes("PurchaseOrder").withProperties("Amount"), DeliveryMode.CALLBACK);
            feed.subscribe("price-cache", (client, changes) -> changes.forEach(c -> evicted.add(c.objectId())));

            CustomObject order = engine.session("alice").objectStore().createCustomObject("PurchaseOrder");
            order.getProperties().putValue("Amount", 120);
            order.save(RefreshMode.REFRESH);                    // the change is recorded in this save's transaction

            ChangeDispatcher dispatcher = feed.dispatcher(DispatcherConfig.ofDefaults());   // any number, in any processes
            while (!dispatcher.runOnce().isIdle()) {
                // one client per pass; dispatcher.start() runs passes on a thread of its own
            }
            List<QueuedChange> batch = feed.poll("search-index", 100);            // in the indexer's process
            feed.acknowledge("search-index", batch.stream().map(QueuedChange::deliveryId).toList());
            ClientLag lag = feed.lag("search-index");             // position, pending changes, age of the oldest
            // endregion
            assertThat(batch).extracting(q -> q.change().objectId()).contains(order.getId());
            assertThat(evicted).contains(order.getId());
            assertThat(lag.pending()).isZero();
            feed.unregisterClient("search-index");
            feed.unregisterClient("price-cache");
        }
    }

    @Test
    void fencedSubscriber() {
        try (ContentEngine engine = ContentEngine.open(EngineConfig.from(config).changes(ChangesConfig.of(true)).build())) {
            engine.session("alice").objectStore().defineClass("LedgerPosting", c -> c.integer32("Amount"));
            ChangeFeed feed = engine.changes();
            feed.registerClient("ledger", ChangeFilter.classes("LedgerPosting"), DeliveryMode.CALLBACK);
            List<UUID> posted = new java.util.ArrayList<>();
            // region fenced-subscriber
            AtomicLong applied = new AtomicLong();    // in practice a column written in the same transaction as the postings
            feed.subscribe("ledger", (client, changes, fencingToken) -> {
                if (applied.accumulateAndGet(fencingToken, Math::max) != fencingToken) {
                    return;                           // a paused holder's late batch: a newer holder already delivered
                }
                changes.forEach(c -> posted.add(c.objectId()));
            });
            // endregion
            CustomObject posting = engine.session("alice").objectStore().createCustomObject("LedgerPosting");
            posting.save(RefreshMode.REFRESH);
            ChangeDispatcher dispatcher = feed.dispatcher(DispatcherConfig.ofDefaults());
            while (!dispatcher.runOnce().isIdle()) {
                // deliver
            }
            assertThat(posted).containsExactly(posting.getId());
            feed.unregisterClient("ledger");
        }
    }

    /** The host's own table and insert, as a host application has them. */
    private static void insertOrder(Connection c, long number) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO shop_order (number) VALUES (?)")) {
            insert.setLong(1, number);
            insert.executeUpdate();
        }
    }

    @Test
    void hostTransaction() throws Exception {
        HikariConfig hostConfig = new HikariConfig();
        hostConfig.setJdbcUrl("jdbc:h2:mem:readme-host;DB_CLOSE_DELAY=-1");
        hostConfig.setTransactionIsolation("TRANSACTION_REPEATABLE_READ"); // on H2, as Turnstile requires there
        try (HikariDataSource pool = new HikariDataSource(hostConfig)) {
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE shop_order (number BIGINT PRIMARY KEY)");
            }
            // region host-transaction
            JdbcHostTransactions host = new JdbcHostTransactions();
            ContentEngine engine = ContentEngine.open(EngineConfig.builder().dataSource(pool).hostTransactions(host).build());
            engine.session("carol", Set.of("dispenser-admin")).dispensers().create("order", DispenserConfig.builder().build());
            Dispenser orders = engine.session("shop").dispensers().get("order");
            try (Connection c = pool.getConnection()) {           // the host's connection and transaction
                c.setAutoCommit(false);
                long number = host.joining(c, orders::next);      // Turnstile's work joins it
                insertOrder(c, number);                           // the host's own row
                c.commit();                                       // both, or (c.rollback()) neither
            }
            // endregion
            assertThat(orders.current()).isEqualTo(1);
            try (Connection c = pool.getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT number FROM shop_order")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(1);
            }
            engine.close();
            assertThat(pool.isClosed()).as("the engine never closes the host's pool").isFalse();
        }
    }

    @Test
    void hostFlyway() throws Exception {
        HikariConfig hostConfig = new HikariConfig();
        hostConfig.setJdbcUrl("jdbc:h2:mem:readme-flyway;DB_CLOSE_DELAY=-1");
        try (HikariDataSource dataSource = new HikariDataSource(hostConfig)) {
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE shop_order (number BIGINT PRIMARY KEY)");   // the host's schema is not empty
            }
            // region host-flyway
            Flyway.configure().dataSource(dataSource)
                    .table("ts_schema_history")                                   // Turnstile's history, apart from the host's
                    .locations("classpath:dev/turnstile/engine/db/migration/h2")  // or …/postgresql, …/mariadb
                    .baselineOnMigrate(true).baselineVersion("0")                 // beside the host's tables: from version 1 on
                    .load().migrate();
            ContentEngine engine = ContentEngine.open(EngineConfig.builder().dataSource(dataSource).migrate(false).build());
            // endregion
            try (engine) {
                engine.session("carol", Set.of("dispenser-admin")).dispensers().create("order", DispenserConfig.builder().build());
                assertThat(engine.session("shop").dispensers().get("order").next()).isEqualTo(1);
            }
        }
    }

    @Test
    void dispensers() {
        try (ContentEngine engine = ContentEngine.open(config)) {
            // region dispensers
            Dispensers admin = engine.session("carol", Set.of("dispenser-admin")).dispensers();
            admin.create("invoice", DispenserConfig.builder().format("INV-{yyyy}-{seq:6}").reset(ResetPeriod.YEARLY).build());

            Dispenser invoices = engine.session("workflow-7").dispensers().get("invoice");   // COMBINING by default
            String number = invoices.nextFormatted();         // e.g. "INV-2026-000001"
            NumberBlock block = invoices.next(10);            // ten contiguous numbers, one round trip
            RegisterReport audit = invoices.report();         // every number issued or voided, none missing, none in doubt
            // endregion
            assertThat(number).matches("INV-\\d{4}-\\d{6}");
            assertThat(block.count()).isEqualTo(10);
            assertThat(audit.isAccountedFor()).isTrue();
        }
    }

    @Test
    void errorCodes() {
        try (ContentEngine engine = ContentEngine.open(config)) {
            ObjectStore os = engine.session("alice").objectStore();
            os.defineClass("Case", c -> c.string("Title").string("TitleUpper"));
            var ref = os.getCustomObject("Case", java.util.UUID.randomUUID());
            ref.getProperties().putValue("Title", "x");
            try {
                ref.save(RefreshMode.REFRESH);
            } catch (EngineRuntimeException e) {
                assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_NOT_FOUND);
                return;
            }
            throw new AssertionError("expected E_OBJECT_NOT_FOUND");
        }
    }
}
