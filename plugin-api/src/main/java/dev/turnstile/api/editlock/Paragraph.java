package dev.turnstile.api.editlock;

/** One paragraph of an article: its stable id and its HTML. */
public record Paragraph(String id, String html) {
}
