package dev.turnstile.engine.objects;

import dev.turnstile.api.Document;

import java.util.UUID;

final class DefaultDocument extends DefaultIndependentObject implements Document {
    DefaultDocument(DefaultObjectStore store, String className, UUID id) {
        super(store, className, id);
    }
}
