package dev.turnstile.api.editlock;

import java.util.List;

/** An editable article: its HTML (every paragraph tagged with its stable id), USN and paragraphs. */
public record Article(String type, String articleId, String html, long usn, List<Paragraph> paragraphs) {
    public Article {
        paragraphs = List.copyOf(paragraphs);
    }
}
