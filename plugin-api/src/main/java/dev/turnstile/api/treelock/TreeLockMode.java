package dev.turnstile.api.treelock;

import dev.turnstile.api.EngineRuntimeException;

import java.util.Locale;

/**
 * How a node is locked. {@link #SHARED} holders of one node (readers) may be many;
 * {@link #EXCLUSIVE} excludes every other lock on the node, its ancestors and its descendants.
 * A shared lock on a node lets others take shared locks anywhere in its subtree and above it, but no
 * exclusive one.
 */
public enum TreeLockMode {
    /** Blocks exclusive locks on the node, its ancestors and descendants; other shared locks go ahead. */
    SHARED("S"),
    /** Blocks every lock on the node, its ancestors and its descendants. */
    EXCLUSIVE("X");

    private final String letter;

    TreeLockMode(String letter) {
        this.letter = letter;
    }

    /** {@code S} or {@code X}, as Gray's lock modes are written. */
    public String letter() {
        return letter;
    }

    /** Reads {@code S}, {@code X}, {@code shared} or {@code exclusive}, in any case. */
    public static TreeLockMode parse(String text) {
        if (text != null) {
            switch (text.trim().toUpperCase(Locale.ROOT)) {
                case "S", "SHARED" -> {
                    return SHARED;
                }
                case "X", "EXCLUSIVE" -> {
                    return EXCLUSIVE;
                }
                default -> {
                }
            }
        }
        throw EngineRuntimeException.badArgument("tree lock mode", text, "expected S, X, shared or exclusive");
    }
}
