package dev.turnstile.api.editlock;

/**
 * The outcome of saving text under an edit lock. When the save is refused — the lock lapsed or is
 * another's, or the article changed since it was loaded — {@link #text()} is the text the editor
 * sent, handed back so nothing typed is lost, with the {@link #reason()}.
 */
public record SaveResult(boolean saved, Long usn, String reason, String text) {
    public static SaveResult saved(long usn) {
        return new SaveResult(true, usn, null, null);
    }

    public static SaveResult refused(String reason, String text) {
        return new SaveResult(false, null, reason, text);
    }
}
