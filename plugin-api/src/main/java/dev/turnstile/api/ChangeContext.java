package dev.turnstile.api;

import java.time.Instant;
import java.util.UUID;

/** What a {@link ChangePreprocessor} sees of the change being saved. */
public interface ChangeContext {
    /** What the save does to the object. */
    enum Action {
        /** The save creates the object. */
        CREATE,
        /** The save changes an existing object. */
        UPDATE,
        /** The save deletes the object. */
        DELETE
    }

    /** Whether the save creates, changes or deletes the object. */
    Action action();

    /** The class of the object being saved. */
    String className();

    /** The id of the object being saved. */
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
