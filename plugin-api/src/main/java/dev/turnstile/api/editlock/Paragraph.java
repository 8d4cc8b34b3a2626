package dev.turnstile.api.editlock;

/**
 * One paragraph of an article: its stable id and its HTML.
 *
 * @param id its stable id
 * @param html its inner HTML
 */
public record Paragraph(String id, String html) {
}
