package dev.turnstile.engine;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.Session;

record DefaultSession(ContentEngine engine, String user, ObjectStore objectStore) implements Session {
}
