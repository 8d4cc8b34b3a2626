package dev.turnstile.engine.db;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every H2 URL the engine opens turns off result reuse (it lost updates: the duplicate of issue
 * 11, item 5) and drops AUTO_RECONNECT (it split a transaction across two sessions: issue 17).
 */
class H2UrlSettingsTest {
    @Test
    void h2Urls_getResultReuseOff_unlessTheySayOtherwise_loseAutoReconnect_andOtherDatabasesAreLeftAlone() {
        assertThat(EnginePool.h2Settings("jdbc:h2:file:./x;AUTO_SERVER=TRUE"))
                .isEqualTo("jdbc:h2:file:./x;AUTO_SERVER=TRUE;OPTIMIZE_REUSE_RESULTS=FALSE");
        assertThat(EnginePool.h2Settings("jdbc:h2:file:./x;optimize_reuse_results=TRUE"))
                .isEqualTo("jdbc:h2:file:./x;optimize_reuse_results=TRUE");
        assertThat(EnginePool.h2Settings("jdbc:h2:file:./x;AUTO_SERVER=TRUE;auto_reconnect=TRUE;LOCK_TIMEOUT=10000"))
                .as("AUTO_RECONNECT is dropped").isEqualTo(
                        "jdbc:h2:file:./x;AUTO_SERVER=TRUE;LOCK_TIMEOUT=10000;OPTIMIZE_REUSE_RESULTS=FALSE");
        assertThat(EnginePool.h2Settings("jdbc:postgresql://127.0.0.1:5432/test"))
                .isEqualTo("jdbc:postgresql://127.0.0.1:5432/test");
    }

    @Test
    void sharedFiles_areAutoServerUrlsOfFiles_resolvedToAbsolutePaths() {
        Path here = Path.of("").toAbsolutePath();
        assertThat(SharedH2File.fileOf("jdbc:h2:file:./data/x;AUTO_SERVER=TRUE;LOCK_TIMEOUT=10000"))
                .contains(here.resolve("data/x"));
        assertThat(SharedH2File.fileOf("jdbc:h2:data/x;auto_server=true")).contains(here.resolve("data/x"));
        assertThat(SharedH2File.fileOf("jdbc:h2:~/x;AUTO_SERVER=TRUE")).contains(Path.of(System.getProperty("user.home"), "x"));
        assertThat(SharedH2File.fileOf("jdbc:h2:file:/abs/x;AUTO_SERVER=FALSE")).as("not shared").isEmpty();
        assertThat(SharedH2File.fileOf("jdbc:h2:file:/abs/x")).as("one process alone").isEmpty();
        assertThat(SharedH2File.fileOf("jdbc:h2:mem:x;AUTO_SERVER=TRUE")).as("in memory").isEmpty();
        assertThat(SharedH2File.fileOf("jdbc:h2:tcp://host/x;AUTO_SERVER=TRUE")).as("a server's").isEmpty();
        assertThat(SharedH2File.fileOf("jdbc:postgresql://127.0.0.1:5432/test")).isEmpty();
    }
}
