package dev.turnstile.engine.db;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** H2's result reuse lost updates (the duplicate of issue 11, item 5): every H2 URL the engine opens turns it off. */
class H2ResultReuseTest {
    @Test
    void h2Urls_getResultReuseOff_unlessTheySayOtherwise_andOtherDatabasesAreLeftAlone() {
        assertThat(Database.withoutResultReuse("jdbc:h2:file:./x;AUTO_SERVER=TRUE"))
                .isEqualTo("jdbc:h2:file:./x;AUTO_SERVER=TRUE;OPTIMIZE_REUSE_RESULTS=FALSE");
        assertThat(Database.withoutResultReuse("jdbc:h2:file:./x;optimize_reuse_results=TRUE"))
                .isEqualTo("jdbc:h2:file:./x;optimize_reuse_results=TRUE");
        assertThat(Database.withoutResultReuse("jdbc:postgresql://127.0.0.1:5432/test"))
                .isEqualTo("jdbc:postgresql://127.0.0.1:5432/test");
    }
}
