package dev.turnstile.engine.db;

import com.github.benmanes.caffeine.cache.Cache;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class CachesTest {
    @Test
    void aCachesUpkeep_runsOnTheThreadThatWrites_andIsDoneWhenTheWriteReturns() {
        Set<Thread> upkeep = ConcurrentHashMap.newKeySet();
        Cache<Integer, Integer> cache = Caches.builder().maximumSize(2)
                .<Integer, Integer>removalListener((k, v, cause) -> upkeep.add(Thread.currentThread())).build();
        for (int i = 0; i < 10; i++) {
            cache.put(i, i);
        }
        assertThat(upkeep).as("the threads that evicted").containsExactly(Thread.currentThread());
        assertThat(cache.estimatedSize()).as("evicted down to the bound already").isLessThanOrEqualTo(2);
    }

    @Test
    void everyCacheOfTheEngine_isBuiltByCaches() throws IOException {
        // Caffeine's own builder hands each write's upkeep to the common pool (Caches says why not).
        try (Stream<Path> sources = Files.walk(Path.of("src/main/java"))) {
            List<String> builtElsewhere = sources.filter(p -> p.toString().endsWith(".java") && !p.endsWith("Caches.java"))
                    .filter(p -> read(p).contains("Caffeine.newBuilder()")).map(p -> p.getFileName().toString()).toList();
            assertThat(builtElsewhere).isEmpty();
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
