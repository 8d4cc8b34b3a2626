package dev.turnstile.api.editlock;

/**
 * The outcome of saving text under an edit lock. When the save is refused — the lock lapsed or is
 * another's, or the article changed since it was loaded — {@link #text()} is the text the editor
 * sent, handed back so nothing typed is lost, with the {@link #reason()}.
 *
 * @param saved whether the text was saved
 * @param usn the article's new USN when saved, else null
 * @param reason why it was refused, else null
 * @param text the text sent, handed back when refused, else null
 */
public record SaveResult(boolean saved, Long usn, String reason, String text) {
    /** A save that went through, giving the article's new USN. */
    public static SaveResult saved(long usn) {
        return new SaveResult(true, usn, null, null);
    }

    /** A refused save, handing the text back. */
    public static SaveResult refused(String reason, String text) {
        return new SaveResult(false, null, reason, text);
    }
}
