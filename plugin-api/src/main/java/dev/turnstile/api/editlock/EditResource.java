package dev.turnstile.api.editlock;

import dev.turnstile.api.EngineRuntimeException;

/**
 * What an editor locks: an article of a resource type, or one paragraph of it (by its stable
 * paragraph id). {@link #resourceId()} is the paper's resourceId: {@code type:article} or
 * {@code type:article#paragraph}.
 *
 * @param type the resource type: 1 to 32 letters or digits, '_' or '-'
 * @param articleId the article's id: 1 to 64 letters or digits, '.', '_' or '-'
 * @param paragraphId the paragraph's stable id, or null for the whole article
 */
public record EditResource(String type, String articleId, String paragraphId) {
    public EditResource {
        if (!isType(type)) {
            throw EngineRuntimeException.badArgument("resource type", type, "1 to 32 letters or digits (any script), '_' or '-'");
        }
        if (!isName(articleId, 64, "_.-")) {
            throw EngineRuntimeException.badArgument("article id", articleId, "1 to 64 letters or digits (any script), '.', '_'"
                    + " or '-'");
        }
        if (paragraphId != null && !paragraphId.matches("[A-Za-z0-9_-]{1,32}")) {
            throw EngineRuntimeException.badArgument("paragraph id", paragraphId, "1 to 32 letters, digits, '_' or '-'");
        }
    }

    /** Whether {@code type} is a valid resource type: 1 to 32 Unicode letters or digits, '_' or '-'. */
    public static boolean isType(String type) {
        return isName(type, 32, "_-");
    }

    /** 1 to {@code max} code points, each a Unicode letter or digit or one of {@code punctuation}. */
    private static boolean isName(String s, int max, String punctuation) {
        if (s == null || s.isEmpty() || s.codePointCount(0, s.length()) > max) {
            return false;
        }
        return s.codePoints().allMatch(c -> Character.isLetterOrDigit(c) || punctuation.indexOf(c) >= 0);
    }

    /** The whole article {@code articleId} of {@code type}. */
    public static EditResource article(String type, String articleId) {
        return new EditResource(type, articleId, null);
    }

    /** One paragraph of an article, by its stable id. */
    public static EditResource paragraph(String type, String articleId, String paragraphId) {
        return new EditResource(type, articleId, paragraphId);
    }

    /** Whether this is a paragraph rather than a whole article. */
    public boolean isParagraph() {
        return paragraphId != null;
    }

    /** The article this resource is or belongs to. */
    public EditResource article() {
        return isParagraph() ? article(type, articleId) : this;
    }

    /** The paper's resourceId: {@code type:article} or {@code type:article#paragraph}. */
    public String resourceId() {
        return type + ":" + articleId + (paragraphId == null ? "" : "#" + paragraphId);
    }

    @Override
    public String toString() {
        return resourceId();
    }
}
