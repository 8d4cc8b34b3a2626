package dev.turnstile.engine.db;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every H2 URL the engine opens turns off result reuse (it lost updates: the duplicate of issue
 * 11, item 5) and the write delay (commits of a killed serving process were lost: issue 17), and
 * drops AUTO_RECONNECT (it split a transaction across two sessions: issue 17).
 */
class H2UrlSettingsTest {
    @Test
    void h2Urls_getResultReuseAndWriteDelayOff_unlessTheySayOtherwise_andOtherDatabasesAreLeftAlone() {
        assertThat(Database.h2Settings("jdbc:h2:file:./x;AUTO_SERVER=TRUE"))
                .isEqualTo("jdbc:h2:file:./x;AUTO_SERVER=TRUE;OPTIMIZE_REUSE_RESULTS=FALSE;WRITE_DELAY=0");
        assertThat(Database.h2Settings("jdbc:h2:file:./x;optimize_reuse_results=TRUE;write_delay=500"))
                .isEqualTo("jdbc:h2:file:./x;optimize_reuse_results=TRUE;write_delay=500");
        assertThat(Database.h2Settings("jdbc:h2:file:./x;AUTO_SERVER=TRUE;auto_reconnect=TRUE;LOCK_TIMEOUT=10000"))
                .as("AUTO_RECONNECT is dropped").isEqualTo(
                        "jdbc:h2:file:./x;AUTO_SERVER=TRUE;LOCK_TIMEOUT=10000;OPTIMIZE_REUSE_RESULTS=FALSE;WRITE_DELAY=0");
        assertThat(Database.h2Settings("jdbc:postgresql://127.0.0.1:5432/test"))
                .isEqualTo("jdbc:postgresql://127.0.0.1:5432/test");
    }
}
