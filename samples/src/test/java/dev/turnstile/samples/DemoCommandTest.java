package dev.turnstile.samples;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class DemoCommandTest {
    @Test
    void demoShowsTheFirstWriterWinning_andTheLoserRefused() throws Exception {
        EngineConfig config = EngineConfig.builder()
                .jdbcUrl("jdbc:h2:file:" + Path.of("target", "h2", "demo").toAbsolutePath() + ";AUTO_SERVER=TRUE")
                .build();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ContentEngine engine = ContentEngine.open(config);
             PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            DemoCommand.run(engine, out);
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("bob's save was refused: E_OBJECT_MODIFIED")
                .contains("requested USN = 0, database USN = 1")
                .contains("Note = \"alice was here\", USN 1")
                .doesNotContain("THIS MUST NOT HAPPEN");
        assertThat(text).containsOnlyOnce(" won: ").containsOnlyOnce(" lost: requested USN 1, database USN 2");
        assertThat(text).contains("Counter = 2").contains("USN 2");
    }
}
