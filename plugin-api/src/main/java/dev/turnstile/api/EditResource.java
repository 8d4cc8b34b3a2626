package dev.turnstile.api;

/**
 * What an editor locks: an article of a resource type, or one paragraph of it (by its stable
 * paragraph id). {@link #resourceId()} is the paper's resourceId: {@code type:article} or
 * {@code type:article#paragraph}.
 */
public record EditResource(String type, String articleId, String paragraphId) {
    public EditResource {
        if (type == null || !type.matches("[A-Za-z0-9_-]{1,32}")) {
            throw EngineRuntimeException.badArgument("resource type", type, "1 to 32 letters, digits, '_' or '-'");
        }
        if (articleId == null || !articleId.matches("[A-Za-z0-9_.-]{1,64}")) {
            throw EngineRuntimeException.badArgument("article id", articleId, "1 to 64 letters, digits, '.', '_' or '-'");
        }
        if (paragraphId != null && !paragraphId.matches("[A-Za-z0-9_-]{1,32}")) {
            throw EngineRuntimeException.badArgument("paragraph id", paragraphId, "1 to 32 letters, digits, '_' or '-'");
        }
    }

    public static EditResource article(String type, String articleId) {
        return new EditResource(type, articleId, null);
    }

    public static EditResource paragraph(String type, String articleId, String paragraphId) {
        return new EditResource(type, articleId, paragraphId);
    }

    public boolean isParagraph() {
        return paragraphId != null;
    }

    /** The article this resource is or belongs to. */
    public EditResource article() {
        return isParagraph() ? article(type, articleId) : this;
    }

    public String resourceId() {
        return type + ":" + articleId + (paragraphId == null ? "" : "#" + paragraphId);
    }

    @Override
    public String toString() {
        return resourceId();
    }
}
