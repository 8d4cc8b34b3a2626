package dev.turnstile.engine.objects;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.IndependentObject;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.UpdatingBatch;

import java.util.ArrayList;
import java.util.List;

final class DefaultUpdatingBatch implements UpdatingBatch {
    private final DefaultObjectStore store;
    private final RefreshMode refreshMode;
    private final List<DefaultIndependentObject> objects = new ArrayList<>();

    DefaultUpdatingBatch(DefaultObjectStore store, RefreshMode refreshMode) {
        this.store = store;
        this.refreshMode = refreshMode;
    }

    @Override
    public void add(IndependentObject object, PropertyFilter filter) {
        if (!(object instanceof DefaultIndependentObject o) || o.store().services() != store.services()) {
            throw EngineRuntimeException.badArgument("batch object", object, "not an object of this engine");
        }
        objects.add(o);
    }

    @Override
    public int size() {
        return objects.size();
    }

    @Override
    public boolean hasPendingExecute() {
        return !objects.isEmpty();
    }

    @Override
    public void updateBatch() {
        if (objects.isEmpty()) {
            return;
        }
        store.saveAll(objects, refreshMode);
        objects.clear();
    }
}
