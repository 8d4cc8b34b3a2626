package dev.turnstile.api.editlock;

import java.util.List;

/**
 * Who edits an article: its own lock (null if none is valid) and the valid locks on its paragraphs,
 * which the article's editor sees greyed out.
 *
 * @param article the article asked about
 * @param articleLock the valid lock on the whole article, or null if none
 * @param paragraphLocks the valid locks on its paragraphs
 */
public record EditStatus(EditResource article, EditLock articleLock, List<EditLock> paragraphLocks) {
    public EditStatus {
        paragraphLocks = List.copyOf(paragraphLocks);
    }
}
