package dev.turnstile.api.editlock;

import java.util.List;

/**
 * Who edits an article: its own lock (null if none is valid) and the valid locks on its paragraphs,
 * which the article's editor sees greyed out.
 */
public record EditStatus(EditResource article, EditLock articleLock, List<EditLock> paragraphLocks) {
    public EditStatus {
        paragraphLocks = List.copyOf(paragraphLocks);
    }
}
