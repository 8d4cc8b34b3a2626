package dev.turnstile.engine.objects;

import dev.turnstile.api.CustomObject;

import java.util.UUID;

final class DefaultCustomObject extends DefaultIndependentObject implements CustomObject {
    DefaultCustomObject(DefaultObjectStore store, String className, UUID id) {
        super(store, className, id);
    }
}
