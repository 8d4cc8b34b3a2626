package dev.turnstile.api.changes;

import dev.turnstile.api.EngineRuntimeException;

import java.util.Locale;

/** What a save did to an object, as the change feed records it; one change per committed save. */
public enum ChangeKind {
    /** A save that created the object. */
    CREATE,
    /** A save that changed properties of the object (and perhaps its lock). */
    UPDATE,
    /** A save that deleted the object. */
    DELETE,
    /** A save that only locked the object (or refreshed its lock). */
    LOCK,
    /** A save that only unlocked the object. */
    UNLOCK;

    /** Reads a kind's name in any case; an unknown one fails with {@code E_BAD_VALUE} naming it. */
    public static ChangeKind parse(String text) {
        if (text != null) {
            for (ChangeKind k : values()) {
                if (k.name().equals(text.trim().toUpperCase(Locale.ROOT))) {
                    return k;
                }
            }
        }
        throw EngineRuntimeException.badArgument("change kind", text, "expected one of CREATE, UPDATE, DELETE, LOCK, UNLOCK");
    }
}
