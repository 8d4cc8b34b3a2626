package dev.turnstile.micrometer;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.changes.DeliveryMode;
import dev.turnstile.api.changes.ChangeFilter;
import dev.turnstile.api.changes.DispatcherConfig;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.engine.TestDatabases;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The engine's operations as Micrometer Observations: a take, a save, a lock and its refusal, a dispatch pass. */
class TurnstileObservationsTest {
    /** Every observation that stopped: its name, its low-cardinality key values, and its error if any. */
    private static final class Seen implements ObservationHandler<Observation.Context> {
        final List<String> stopped = new CopyOnWriteArrayList<>();

        @Override
        public void onStop(Observation.Context context) {
            StringBuilder line = new StringBuilder(context.getName());
            context.getLowCardinalityKeyValues().stream().forEach(kv -> line.append(' ').append(kv.getKey()).append('=').append(kv.getValue()));
            if (context.getError() != null) {
                line.append(" error=").append(((EngineRuntimeException) context.getError()).getExceptionCode());
            }
            stopped.add(line.toString());
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    @Test
    void takesSavesLocksAndDispatchPasses_areObserved_withTheirFailures() {
        EngineConfig config = EngineConfig.from(TestDatabases.h2("observed-" + UUID.randomUUID())).changes(ChangesConfig.of(true)).build();
        try (ContentEngine engine = ContentEngine.open(config)) {
            ObservationRegistry registry = ObservationRegistry.create();
            Seen seen = new Seen();
            registry.observationConfig().observationHandler(seen);
            engine.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers().create("invoice", DispenserConfig.ofDefaults());
            ObjectStore os = engine.session("alice").objectStore();
            os.defineClass("Memo", c -> c.integer32("N"));
            engine.changes().registerClient("audit", ChangeFilter.classes("Memo"), DeliveryMode.QUEUE);
            TurnstileObservations.observe(engine, registry);

            engine.session("clerk").dispensers().get("invoice").next();
            CustomObject memo = os.createCustomObject("Memo");
            memo.save(RefreshMode.REFRESH);
            memo.lock(30, "alice");
            memo.save(RefreshMode.REFRESH);
            CustomObject bobs = engine.session("bob").objectStore().getCustomObject("Memo", memo.getId());
            bobs.lock(30, "bob");
            assertThatThrownBy(() -> bobs.save(RefreshMode.REFRESH)).hasMessageStartingWith("E_OBJECT_LOCKED");
            memo.unlock();
            memo.save(RefreshMode.REFRESH);
            engine.changes().dispatcher(DispatcherConfig.builder().name("d1").build()).runOnce();

            assertThat(seen.stopped).containsExactly(
                    "turnstile.dispenser.take dispenser=invoice strategy=combining",
                    "turnstile.object.save class=Memo operation=save",
                    "turnstile.object.save class=Memo operation=lock",
                    "turnstile.object.save class=Memo operation=lock error=" + ExceptionCode.E_OBJECT_LOCKED,
                    "turnstile.object.save class=Memo operation=unlock",
                    "turnstile.changes.dispatch dispatcher=d1");
        }
    }
}
