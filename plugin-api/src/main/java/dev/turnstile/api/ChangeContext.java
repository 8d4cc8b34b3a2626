package dev.turnstile.api;

import java.time.Instant;
import java.util.UUID;

/** What a {@link ChangePreprocessor} sees of the change being saved. */
public interface ChangeContext {
    enum Action { CREATE, UPDATE, DELETE }

    Action action();

    String className();

    UUID objectId();

    /** The user of the saving session. */
    String user();

    /** When the change is stamped (DateLastModified). */
    Instant now();

    /** The values the save will write; {@code putValue} changes them. */
    Properties properties();

    /** The stored value before this change, or null for a create or an unset property. */
    Object originalValue(String name);
}
