package dev.turnstile.samples.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.editlock.Article;
import dev.turnstile.api.editlock.EditLock;
import dev.turnstile.api.editlock.EditLockResult;
import dev.turnstile.api.editlock.EditLocks;
import dev.turnstile.api.editlock.EditResource;
import dev.turnstile.api.editlock.EditStatus;
import dev.turnstile.api.editlock.Paragraph;
import dev.turnstile.api.editlock.SaveResult;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The edit lock endpoints and the article page:
 * <ul>
 *   <li>{@code GET /api/articles/{type}/{id}}: HTML, USN, paragraphs and who edits what;
 *       {@code PUT} with {@code {"html"}} creates it
 *   <li>{@code POST /api/articles/{type}/{id}/locks} with {@code {}} (the article) or
 *       {@code {"paragraphs": [ids]}}: 200 with the locks, 409 naming the holder and since when
 *   <li>{@code POST /api/locks/{lockId}/heartbeat}, {@code POST /api/locks/{lockId}/release}
 *       (also by {@code navigator.sendBeacon}), {@code POST /api/locks/{lockId}/save}
 *       {@code {"html", "baseUsn"}}: 409 with the text handed back when refused
 *   <li>{@code POST /api/locks/{lockId}/break} {@code {"reason"}}: an operator with the lock-breaking
 *       role ends another user's lock; its holder is told at the next heartbeat
 *   <li>{@code GET /edit/{type}/{id}}: the page
 * </ul>
 */
final class EditRoutes {
    private final ContentEngine engine;

    EditRoutes(ContentEngine engine) {
        this.engine = engine;
    }

    /** The edit locks as the request's authenticated user, with that user's roles: every lock, heartbeat, save and break is theirs. */
    private EditLocks locks(Context ctx) {
        ServerUsers.User user = ctx.attribute(TurnstileServer.USER);
        return engine.session(user.name(), user.roles()).editLocks();
    }

    private static EditResource resource(Context ctx) {
        return EditResource.article(ctx.pathParam("type"), ctx.pathParam("id"));
    }

    void show(Context ctx) {
        EditResource a = resource(ctx);
        EditLocks locks = locks(ctx);
        Article article = locks.article(a);
        EditStatus status = locks.status(a);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", article.type());
        body.put("id", article.articleId());
        body.put("usn", article.usn());
        body.put("html", article.html());
        List<Map<String, Object>> paragraphs = new ArrayList<>();
        for (Paragraph p : article.paragraphs()) {
            paragraphs.add(Map.of("id", p.id(), "html", p.html()));
        }
        body.put("paragraphs", paragraphs);
        body.put("articleLock", status.articleLock() == null ? null : lock(status.articleLock()));
        Map<String, Object> byParagraph = new LinkedHashMap<>();
        status.paragraphLocks().forEach(l -> byParagraph.put(l.resource().paragraphId(), lock(l)));
        body.put("paragraphLocks", byParagraph);
        TurnstileServer.json(ctx, HttpStatus.OK, body);
    }

    /** {@code PUT /api/articles/{type}/{id}} {@code {"html"}}: creates the article (400 if it exists). */
    void create(Context ctx) {
        EditResource a = resource(ctx);
        JsonNode body = TurnstileServer.jsonBody(ctx);
        if (!body.path("html").isTextual()) {
            throw new TurnstileServer.BadRequest("the body must be {\"html\": text}");
        }
        Article created = locks(ctx).createArticle(a.type(), a.articleId(), body.get("html").asText());
        TurnstileServer.json(ctx, HttpStatus.CREATED, Map.of("usn", created.usn(), "paragraphs",
                created.paragraphs().stream().map(Paragraph::id).toList()));
    }

    void acquire(Context ctx) {
        EditResource a = resource(ctx);
        JsonNode body = TurnstileServer.jsonBody(ctx);
        List<EditResource> wanted = new ArrayList<>();
        JsonNode paragraphs = body.path("paragraphs");
        if (!paragraphs.isMissingNode() && !paragraphs.isArray()) {
            throw new TurnstileServer.BadRequest("paragraphs must be an array of paragraph ids");
        }
        paragraphs.forEach(p -> wanted.add(EditResource.paragraph(a.type(), a.articleId(), p.asText())));
        if (wanted.isEmpty()) {
            wanted.add(a);
        }
        EditLocks locks = locks(ctx);
        locks.article(a); // 404 for an unknown article, before anything is locked
        EditLockResult result = locks.tryLock(wanted);
        if (result instanceof EditLockResult.Refused r) {
            Map<String, Object> refused = new LinkedHashMap<>();
            refused.put("error", r.reason());
            refused.put("code", "REFUSED");
            refused.put("holder", r.holder());
            refused.put("since", r.holderSince().toString());
            TurnstileServer.json(ctx, HttpStatus.CONFLICT, refused);
            return;
        }
        TurnstileServer.json(ctx, HttpStatus.OK, Map.of("locks", result.granted().locks().stream().map(EditRoutes::lock).toList()));
    }

    void heartbeat(Context ctx) {
        EditLock l = locks(ctx).heartbeat(lockId(ctx));
        TurnstileServer.json(ctx, HttpStatus.OK, lock(l));
    }

    void release(Context ctx) {
        locks(ctx).unlock(lockId(ctx));
        ctx.status(HttpStatus.NO_CONTENT);
    }

    /** {@code POST /api/locks/{lockId}/break} {@code {"reason": text}}: the lock-breaking role decides. */
    void breakLock(Context ctx) {
        String reason = ConsoleRoutes.breakBody(ctx).get("reason").asText();
        String lockId = lockId(ctx);
        locks(ctx).breakLock(lockId, reason);
        TurnstileServer.json(ctx, HttpStatus.OK, Map.of("broken", lockId));
    }

    void save(Context ctx) {
        JsonNode body = TurnstileServer.jsonBody(ctx);
        if (!body.path("html").isTextual() || !body.path("baseUsn").isIntegralNumber() || !body.path("baseUsn").canConvertToLong()) {
            throw new TurnstileServer.BadRequest("the body must be {\"html\": text, \"baseUsn\": number}");
        }
        SaveResult r = locks(ctx).save(lockId(ctx), body.get("html").asText(), body.get("baseUsn").longValue());
        if (r.saved()) {
            TurnstileServer.json(ctx, HttpStatus.OK, Map.of("saved", true, "usn", r.usn()));
            return;
        }
        Map<String, Object> refused = new LinkedHashMap<>();
        refused.put("saved", false);
        refused.put("error", r.reason());
        refused.put("code", "NOT_SAVED");
        refused.put("text", r.text());
        TurnstileServer.json(ctx, HttpStatus.CONFLICT, refused);
    }

    /** A lock id as acquire hands them out (a UUID); anything else is the client's mistake, not a refusal. */
    private static String lockId(Context ctx) {
        String id = ctx.pathParam("lockId");
        if (!id.matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")) {
            throw new TurnstileServer.BadRequest("not a lock id (36 characters as acquire returned it): "
                    + (id.length() > 40 ? id.substring(0, 40) + "… (" + id.length() + " characters)" : id));
        }
        return id;
    }

    private static Map<String, Object> lock(EditLock l) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("lockId", l.lockToken());
        m.put("user", l.holder());
        m.put("resource", l.resource().resourceId());
        m.put("paragraph", l.resource().paragraphId());
        m.put("since", l.lockedAt().toString());
        m.put("expiresAt", l.expiresAt().toString());
        // The page heartbeats at the interval the server states, never by its own clock against expiresAt.
        long left = Duration.between(l.heartbeatAt(), l.expiresAt()).toMillis();
        m.put("heartbeatEveryMillis", Math.max(1000, left / 3));
        return m;
    }
}
