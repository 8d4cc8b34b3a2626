package dev.turnstile.engine.objects;

import dev.turnstile.api.Folder;

import java.util.UUID;

final class DefaultFolder extends DefaultIndependentObject implements Folder {
    DefaultFolder(DefaultObjectStore store, String className, UUID id) {
        super(store, className, id);
    }
}
