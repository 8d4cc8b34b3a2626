package dev.turnstile.engine.objects;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.engine.TestDatabases;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Reads on a Galera node see every commit the cluster answered before them: a Galera node applies
 * another node's commit a moment after that node answered it, so without a causality wait a host
 * behind a load balancer saves on one node and does not find its own object on the next.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("galera")
class GaleraCausalReadTest {
    private static final int ROUNDS = 300;
    private ContentEngine node1;
    private ContentEngine node2;

    @BeforeAll
    void open() {
        node1 = ContentEngine.open(TestDatabases.galera(1));
        node2 = ContentEngine.open(TestDatabases.galera(2));
    }

    @AfterAll
    void close() {
        node1.close();
        node2.close();
    }

    @Test
    void anObjectSavedOnOneNode_isReadAsSavedOnAnother_atOnce() {
        String cls = AbstractObjectStoreContractTest.uniqueName("Causal");
        ObjectStore os1 = node1.session("alice").objectStore();
        ObjectStore os2 = node2.session("alice").objectStore();
        os1.defineClass(cls, c -> c.integer32("Counter"));
        os2.getClassDefinition(cls);
        List<String> stale = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            CustomObject o = os1.createCustomObject(cls);
            o.getProperties().putValue("Counter", round);
            o.save(RefreshMode.REFRESH);
            o.getProperties().putValue("Counter", round + 1);
            o.save(RefreshMode.REFRESH);
            try {
                CustomObject read = os2.fetchCustomObject(cls, o.getId(), PropertyFilter.ALL);
                if (read.getUpdateSequenceNumber() != 1L) {
                    stale.add("round " + round + ": USN " + read.getUpdateSequenceNumber() + " on node 2, 1 saved on node 1");
                }
            } catch (RuntimeException e) {
                stale.add("round " + round + ": " + e.getMessage());
            }
        }
        assertThat(stale).isEmpty();
    }

    @Test
    void aHostPoolWhoseTransactionsDoNotAllWaitForTheCluster_isRefusedAtOpen_andOneWhoseDoOpens() {
        String url = TestDatabases.galera(2).jdbcUrl();
        try (HikariDataSource plain = pool(url)) {
            assertThatThrownBy(() -> ContentEngine.open(EngineConfig.builder().dataSource(plain).build()))
                    .isInstanceOfSatisfying(EngineRuntimeException.class, e -> assertThat(e.getExceptionCode())
                            .isEqualTo(ExceptionCode.E_CONFIG_INVALID))
                    .hasMessageEndingWith(refusal(0));
        }
        try (HikariDataSource readsOnly = pool(url + "?sessionVariables=wsrep_sync_wait=1")) {
            assertThatThrownBy(() -> ContentEngine.open(EngineConfig.builder().dataSource(readsOnly).build()))
                    .hasMessageEndingWith(refusal(1));
        }
        try (HikariDataSource waiting = pool(url + "?sessionVariables=wsrep_sync_wait=7");
             // On node 2 while this class's engine writes through node 1: two writers, on purpose here.
             ContentEngine engine = ContentEngine.open(EngineConfig.builder().dataSource(waiting).severalGaleraWriters(true).build())) {
            assertThat(engine.session("alice").objectStore()).isNotNull();
        }
    }

    private static String refusal(int setting) {
        return "the host's DataSource is a Galera cluster node and its connections run with wsrep_sync_wait = " + setting
                + ": a transaction could miss a commit another node has already answered (Galera waits only before a"
                + " transaction's first statement, and only if the setting names its kind). Set wsrep_sync_wait = 7"
                + " (reads, updates and deletes, inserts) on the pool's connections (with MariaDB Connector/J:"
                + " sessionVariables=wsrep_sync_wait=7 in the URL).";
    }

    private static HikariDataSource pool(String url) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        c.setUsername("root");
        c.setPassword("");
        c.setMaximumPoolSize(2);
        return new HikariDataSource(c);
    }
}
