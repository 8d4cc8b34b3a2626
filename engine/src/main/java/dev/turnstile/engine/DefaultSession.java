package dev.turnstile.engine;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.Session;
import dev.turnstile.api.dispenser.Dispensers;
import dev.turnstile.api.editlock.EditLocks;
import dev.turnstile.api.treelock.TreeLocks;

import java.util.Set;

record DefaultSession(ContentEngine engine, String user, Set<String> roles, ObjectStore objectStore,
                      Dispensers dispensers, EditLocks editLocks, TreeLocks treeLocks) implements Session {
}
