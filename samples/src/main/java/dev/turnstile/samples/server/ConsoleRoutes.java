package dev.turnstile.samples.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.IndependentObject;
import dev.turnstile.api.LockBreak;
import dev.turnstile.api.LockConfig;
import dev.turnstile.api.LockPage;
import dev.turnstile.api.LockQuery;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.ObjectLockInfo;
import dev.turnstile.api.changes.ClientLag;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.Dispensers;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.api.editlock.EditAuditEntry;
import dev.turnstile.api.editlock.EditLock;
import dev.turnstile.api.treelock.TreeLockInfo;
import io.javalin.http.Context;
import org.jsoup.Jsoup;
import io.javalin.http.HttpStatus;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The console's data, for the page at {@code /}:
 * <ul>
 *   <li>{@code GET /api/console}: who holds what — edit locks with id, holder and age, tree locks,
 *       cooperative object locks, each a page of {@link #PAGE} with its total, filtered and ordered
 *       by the query string ({@link #query}) — the dispensers with their current numbers and register
 *       report (for the dispenser admin role), and every change feed client's lag; a user without an
 *       operator role ({@link #OPERATOR_ROLES}) sees only the locks they hold, and no feed clients
 *   <li>{@code GET /api/console/audit?resource=…}: the audit trail of one edit resource, newest first
 *   <li>{@code POST /api/tree-locks/{lockToken}/break} {@code {"reason"}} and
 *       {@code POST /api/objects/{className}/{id}/lock/break} {@code {"lockToken", "reason"}}: an
 *       operator with the lock-breaking role breaks a tree lock, or the cooperative lock the console
 *       showed on an object (not one taken since); the holder is told who, when and why
 * </ul>
 * The dispensers and feed clients come in pages of {@link #PAGE} too ({@code dispenserOffset},
 * {@code feedOffset}); a dispenser's register report and an audit trail are capped at {@link #MAX_ROWS}.
 */
final class ConsoleRoutes {
    static final int MAX_ROWS = 500;
    /** The rows of a lock table's page. */
    static final int PAGE = 50;
    /** The latest breaks an operator sees. */
    static final int MAX_BREAKS = 20;
    /** The roles that see everyone's locks and the feed clients: the engine's lock-breaking and dispenser roles, and operator. */
    static final List<String> OPERATOR_ROLES = List.of(LockConfig.DEFAULT_BREAKER_ROLE, DispensersConfig.DEFAULT_ADMIN_ROLE, "operator");

    private final ContentEngine engine;

    ConsoleRoutes(ContentEngine engine) {
        this.engine = engine;
    }

    void show(Context ctx) {
        ServerUsers.User user = ctx.attribute(TurnstileServer.USER);
        Instant now = Instant.now(); // only to show ages; every decision is the engine's, by the database clock
        // An operator sees everyone's locks; an editor only their own (who edits what elsewhere is not theirs to see).
        boolean operator = user.roles().stream().anyMatch(OPERATOR_ROLES::contains);
        LockQuery query = query(ctx, user, operator);
        // Every page's first row, read before anything is: a bad one is refused whatever the user may see.
        int editOffset = offset(ctx, "editOffset");
        int treeOffset = offset(ctx, "treeOffset");
        int objectOffset = offset(ctx, "objectOffset");
        int dispenserOffset = offset(ctx, "dispenserOffset");
        int feedOffset = offset(ctx, "feedOffset");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("scope", operator ? "everyone" : "own");
        // Whether to offer "break": the engine decides each break by the same role.
        body.put("mayBreak", user.roles().contains(engine.config().locks().breakerRole()));
        Map<String, Map<String, String>> wordsByArticle = new java.util.HashMap<>();
        body.put("editLocks", page(engine.editLocks().heldLocks(query.offset(editOffset)),
                l -> editLock(l, now, wordsByArticle)));
        body.put("treeLocks", page(engine.treeLocks().status(query.offset(treeOffset)), ConsoleRoutes::treeLock));
        body.put("objectLocks", page(engine.session(user.name(), user.roles()).objectStore()
                .lockedObjects(query.offset(objectOffset)), ConsoleRoutes::objectLock));
        body.put("lockBreaks", operator ? engine.lockBreaks(MAX_BREAKS).stream().map(ConsoleRoutes::lockBreak).toList() : List.of());
        Dispensers dispensers = engine.session(user.name(), user.roles()).dispensers();
        try {
            List<String> names = dispensers.names().stream().sorted().toList();
            body.put("dispensers", page(names, dispenserOffset, name -> dispenser(dispensers.get(name))));
        } catch (EngineRuntimeException e) {
            body.put("dispensers", null);
            body.put("dispensersRefused", e.getMessage());
        }
        if (operator) {
            body.put("feedClients", page(engine.changes().lag(), feedOffset, ConsoleRoutes::client));
        } else {
            body.put("feedClients", null);
            body.put("feedClientsRefused", user.name() + " may not see the change feed's clients: that needs one of the roles "
                    + String.join(", ", OPERATOR_ROLES));
        }
        TurnstileServer.json(ctx, HttpStatus.OK, body);
    }

    /**
     * The lock tables' filters, from the query string: {@code holder}, {@code contains} (an article,
     * a node, a class or an object id), {@code lockId}, {@code order} (oldest, newest, holder, what);
     * each table's page of {@link #PAGE} rows is its own {@code …Offset}. An editor's holder is herself.
     */
    private static LockQuery query(Context ctx, ServerUsers.User user, boolean operator) {
        String holder = ctx.queryParam("holder");
        if (!operator && holder != null && !holder.isBlank() && !holder.equals(user.name())) {
            throw new TurnstileServer.Forbidden(user.name() + " may see only the locks she or he holds: another holder's need one of"
                    + " the roles " + String.join(", ", OPERATOR_ROLES));
        }
        String order = ctx.queryParam("order");
        return new LockQuery(operator ? holder : user.name(), ctx.queryParam("contains"), ctx.queryParam("lockId"),
                order == null || order.isBlank() ? LockQuery.Order.OLDEST : LockQuery.Order.parse(order), 0, PAGE);
    }

    private static int offset(Context ctx, String name) {
        String text = ctx.queryParam(name);
        try {
            int offset = text == null || text.isBlank() ? 0 : Integer.parseInt(text);
            if (offset < 0) {
                throw new NumberFormatException(text);
            }
            return offset;
        } catch (NumberFormatException e) {
            throw new TurnstileServer.BadRequest(name + " must be a row number (0 for the first page), not " + text);
        }
    }

    /** A page of {@link #PAGE} rows from {@code offset} of a list the server holds whole (dispensers, feed clients). */
    private static <T> Map<String, Object> page(List<T> all, int offset, java.util.function.Function<T, Map<String, Object>> row) {
        List<T> shown = offset >= all.size() ? List.of() : all.subList(offset, Math.min(all.size(), offset + PAGE));
        return page(new LockPage<>(shown, all.size(), offset), row);
    }

    /** A page as the console shows it: its rows, where it starts, and how many there are in all ("showing 51–100 of 1,000"). */
    private static <T> Map<String, Object> page(LockPage<T> page, java.util.function.Function<T, Map<String, Object>> row) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("total", page.total());
        m.put("offset", page.offset());
        m.put("items", page.items().stream().map(row).toList());
        return m;
    }

    void breakTreeLock(Context ctx) {
        String reason = breakBody(ctx).get("reason").asText();
        ServerUsers.User user = ctx.attribute(TurnstileServer.USER);
        String token = ctx.pathParam("lockToken");
        engine.session(user.name(), user.roles()).treeLocks().breakLock(token, reason);
        TurnstileServer.json(ctx, HttpStatus.OK, Map.of("broken", token));
    }

    void breakObjectLock(Context ctx) {
        JsonNode body = breakBody(ctx, "lockToken");
        String className = ctx.pathParam("className");
        UUID id = uuid("object id", ctx.pathParam("id"));
        UUID token = uuid("lockToken", body.get("lockToken").asText());
        ServerUsers.User user = ctx.attribute(TurnstileServer.USER);
        IndependentObject o = engine.session(user.name(), user.roles()).objectStore().fetchObject(className, id, PropertyFilter.ALL);
        if (!token.equals(o.getLockToken()) || !o.isLocked()) {
            throw EngineRuntimeException.notThatLock(className, id, token); // let go, lapsed, or another lock since the page looked
        }
        o.breakLock(body.get("reason").asText());
        o.save(RefreshMode.NO_REFRESH);
        TurnstileServer.json(ctx, HttpStatus.OK, Map.of("broken", token.toString()));
    }

    /** The body of a break: exactly a text {@code reason} and the text {@code keys}; a typo breaks nothing. */
    static JsonNode breakBody(Context ctx, String... keys) {
        JsonNode body = TurnstileServer.jsonBody(ctx);
        List<String> expected = new ArrayList<>(List.of(keys));
        expected.add("reason");
        if (body.size() != expected.size() || !expected.stream().allMatch(k -> body.path(k).isTextual())) {
            throw new TurnstileServer.BadRequest("the body must be {" + expected.stream().map(k -> "\"" + k + "\": text")
                    .collect(java.util.stream.Collectors.joining(", ")) + "}: why the lock is broken, for its holder and the audit trail");
        }
        return body;
    }

    private static UUID uuid(String what, String text) {
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            throw new TurnstileServer.BadRequest(what + " " + text + " is not an id: the console names each object and lock by one");
        }
    }

    void audit(Context ctx) {
        String resource = ctx.queryParam("resource");
        if (resource == null || resource.isBlank()) {
            throw new TurnstileServer.BadRequest("name the resource: ?resource=wiki:welcome (or a paragraph, or a lock id)");
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        for (EditAuditEntry e : engine.editLocks().audit(resource, MAX_ROWS)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("at", e.at().toString());
            m.put("user", e.user());
            m.put("resource", e.resourceId());
            m.put("operation", e.operation());
            m.put("outcome", e.outcome());
            m.put("detail", e.detail());
            rows.add(m);
        }
        TurnstileServer.json(ctx, HttpStatus.OK, Map.of("resource", resource, "entries", rows));
    }

    private Map<String, Object> editLock(EditLock l, Instant now, Map<String, Map<String, String>> wordsByArticle) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("lockId", l.lockToken());
        m.put("article", l.resource().article().resourceId());
        m.put("paragraph", l.resource().paragraphId());
        if (l.resource().paragraphId() != null) {
            m.put("paragraphWords", wordsByArticle.computeIfAbsent(l.resource().article().resourceId(), a -> firstWords(l))
                    .get(l.resource().paragraphId()));
        }
        m.put("user", l.holder());
        m.put("since", l.lockedAt().toString());
        m.put("ageSeconds", Math.max(0, Duration.between(l.lockedAt(), now).toSeconds()));
        m.put("expiresAt", l.expiresAt().toString());
        return m;
    }

    /** Words a paragraph starts with, by paragraph id, for an operator who knows paragraphs by their text. */
    private Map<String, String> firstWords(EditLock l) {
        Map<String, String> words = new java.util.HashMap<>();
        try {
            for (var p : engine.editLocks().article(l.resource().article()).paragraphs()) {
                String text = Jsoup.parseBodyFragment(p.html()).text();
                String[] split = text.split(" ");
                words.put(p.id(), split.length <= FIRST_WORDS ? text : String.join(" ", java.util.Arrays.copyOf(split, FIRST_WORDS)) + " …");
            }
        } catch (EngineRuntimeException e) {
            // the article went away between the two reads: the paragraph keeps its id alone
        }
        return words;
    }

    private static final int FIRST_WORDS = 6;

    private static Map<String, Object> treeLock(TreeLockInfo i) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("lockToken", i.lockToken());
        m.put("owner", i.holder());
        List<String> nodes = new ArrayList<>();
        i.nodes().forEach((path, mode) -> nodes.add(path + " (" + mode + ")"));
        m.put("nodes", nodes);
        m.put("since", i.lockedAt().toString());
        m.put("until", i.expiresAt().toString());
        m.put("lapsed", i.expired());
        return m;
    }

    private static Map<String, Object> lockBreak(LockBreak b) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", b.kind().title());
        m.put("lockToken", b.lockToken());
        m.put("holder", b.holder());
        m.put("lockedWhat", b.lockedWhat());
        m.put("brokenBy", b.brokenBy());
        m.put("brokenAt", b.brokenAt().toString());
        m.put("reason", b.reason());
        return m;
    }

    private static Map<String, Object> objectLock(ObjectLockInfo l) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("object", l.className() + " {" + l.id() + "}");
        m.put("className", l.className());
        m.put("id", l.id().toString());
        m.put("lockToken", l.lockToken().toString());
        m.put("holder", l.holder());
        m.put("owner", l.owner());
        m.put("expiresAt", l.expiresAt().toString());
        return m;
    }

    private static Map<String, Object> dispenser(Dispenser d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", d.name());
        m.put("current", d.current());
        m.put("format", d.config().format());
        m.put("report", DispenserRoutes.report(d.report(d.config().start(), MAX_ROWS)));
        return m;
    }

    static Map<String, Object> client(ClientLag lag) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("client", lag.client());
        c.put("position", lag.position());
        c.put("pending", lag.pending());
        c.put("oldestPendingMillis", lag.oldestPending() == null ? null : lag.oldestPending().toMillis());
        c.put("touchedAt", lag.touchedAt().toString());
        c.put("heldBy", lag.heldBy());
        return c;
    }
}
