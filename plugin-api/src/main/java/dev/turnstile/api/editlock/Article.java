package dev.turnstile.api.editlock;

import java.util.List;

/**
 * An editable article: its HTML (every paragraph tagged with its stable id), USN and paragraphs.
 *
 * @param type the resource type (its edit-lock settings)
 * @param articleId the article's id within the type
 * @param html the whole HTML, each paragraph tagged with its id
 * @param usn the article's USN, for a whole-article save to build on
 * @param paragraphs its paragraphs, in order
 */
public record Article(String type, String articleId, String html, long usn, List<Paragraph> paragraphs) {
    public Article {
        paragraphs = List.copyOf(paragraphs);
    }
}
