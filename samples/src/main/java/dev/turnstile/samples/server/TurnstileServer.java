package dev.turnstile.samples.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.turnstile.api.ClientLag;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.Dispenser;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.NumberBlock;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The samples' HTTP server: JSON over HTTP on localhost for workflows and the article page. Every
 * {@code /api} request carries {@code Authorization: Bearer <token>} or the session cookie that
 * {@code POST /login} sets; errors are JSON {@code {"error", "code"}} with a
 * status that says whose fault it is.
 *
 * <ul>
 *   <li>{@code POST /api/dispensers/{name}/next} (optional {@code count}, in the query or a JSON body)
 *   <li>{@code GET /api/dispensers/{name}}
 *   <li>{@code POST /login} and the edit lock endpoints of {@link EditRoutes}
 *   <li>{@code GET /api/changes/lag}: every change feed client's position, pending changes and the
 *       age of the oldest, and which dispatcher holds it
 * </ul>
 */
public final class TurnstileServer implements AutoCloseable {
    /** Largest request body accepted; anything bigger is refused with 413 before it is read. */
    public static final long MAX_BODY_BYTES = 64 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String USER = "turnstile.user";
    /** The session cookie the web page logs in with (the user's token; HttpOnly, SameSite=Strict). */
    static final String SESSION_COOKIE = "turnstile_session";
    /** The article page, read once from the class path. */
    private static final String PAGE = page();

    private final ContentEngine engine;
    private final ServerUsers users;
    private final Javalin app;

    public TurnstileServer(ContentEngine engine, ServerUsers users) {
        this.engine = engine;
        this.users = users;
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.http.maxRequestSize = MAX_BODY_BYTES;
            config.routes.post("/login", this::login);
            config.routes.get("/edit/{type}/{id}", ctx -> ctx.contentType("text/html; charset=utf-8").result(PAGE));
            config.routes.before("/api/*", this::authenticate);
            config.routes.post("/api/dispensers/{name}/next", this::next);
            config.routes.get("/api/dispensers/{name}", this::describe);
            config.routes.get("/api/changes/lag", this::lag);
            EditRoutes edit = new EditRoutes(engine.editLocks());
            config.routes.get("/api/articles/{type}/{id}", edit::show);
            config.routes.put("/api/articles/{type}/{id}", edit::create);
            config.routes.post("/api/articles/{type}/{id}/locks", edit::acquire);
            config.routes.post("/api/locks/{lockId}/heartbeat", edit::heartbeat);
            config.routes.post("/api/locks/{lockId}/release", edit::release);
            config.routes.post("/api/locks/{lockId}/save", edit::save);
            config.routes.exception(EngineRuntimeException.class, (e, ctx) -> error(ctx, statusOf(e), e.getMessage(),
                    e.getExceptionCode().name()));
            config.routes.exception(BadRequest.class, (e, ctx) -> error(ctx, HttpStatus.BAD_REQUEST, e.getMessage(), "BAD_REQUEST"));
        });
    }

    /** Starts on 127.0.0.1; port 0 picks a free one. */
    public TurnstileServer start(int port) {
        app.start("127.0.0.1", port);
        return this;
    }

    public int port() {
        return app.port();
    }

    @Override
    public void close() {
        app.stop();
    }

    static final class BadRequest extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message);
        }
    }

    /** {@code {"user", "password"}} → the session cookie and {@code {"user", "token"}}; 401 otherwise. */
    private void login(Context ctx) {
        JsonNode body;
        try {
            body = JSON.readTree(ctx.body().isBlank() ? "{}" : ctx.body());
        } catch (JsonProcessingException e) {
            throw new BadRequest("the body is not JSON: " + e.getOriginalMessage());
        }
        String user = body.path("user").asText(null);
        String token = users.login(user, body.path("password").asText(null)).orElse(null);
        if (token == null) {
            error(ctx, HttpStatus.UNAUTHORIZED, "wrong user or password", "UNAUTHORIZED");
            return;
        }
        ctx.header("Set-Cookie", SESSION_COOKIE + "=" + token + "; Path=/; HttpOnly; SameSite=Strict");
        json(ctx, HttpStatus.OK, Map.of("user", user));
    }

    private static String page() {
        try (var in = TurnstileServer.class.getResourceAsStream("/web/article.html")) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private void authenticate(Context ctx) {
        String header = ctx.header("Authorization");
        String token = header != null && header.startsWith("Bearer ") ? header.substring(7).trim() : ctx.cookie(SESSION_COOKIE);
        ServerUsers.User user = users.authenticate(token).orElse(null);
        if (user == null) {
            error(ctx, HttpStatus.UNAUTHORIZED, "authentication required: send Authorization: Bearer <token>", "UNAUTHORIZED");
            ctx.skipRemainingHandlers();
            return;
        }
        ctx.attribute(USER, user);
    }

    private Dispenser dispenser(Context ctx) {
        ServerUsers.User user = ctx.attribute(USER);
        return engine.session(user.name(), user.roles()).dispensers().get(ctx.pathParam("name"));
    }

    private void next(Context ctx) {
        int count = count(ctx);
        Dispenser d = dispenser(ctx);
        NumberBlock block = d.next(count);
        List<String> formatted = new ArrayList<>();
        for (long n = block.first(); n <= block.last() && formatted.size() < 1000; n++) {
            formatted.add(d.format(block, n));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("dispenser", d.name());
        body.put("first", block.first());
        body.put("last", block.last());
        body.put("count", block.count());
        body.put("formatted", formatted);
        json(ctx, HttpStatus.OK, body);
    }

    /** From {@code ?count=} or a JSON body {@code {"count": n}}; 1 when neither. */
    private static int count(Context ctx) {
        String query = ctx.queryParam("count");
        String body = ctx.body();
        JsonNode value = null;
        if (!body.isBlank()) {
            JsonNode root;
            try {
                root = JSON.readTree(body);
            } catch (JsonProcessingException e) {
                throw new BadRequest("the body is not JSON: " + e.getOriginalMessage());
            }
            if (!root.isObject()) {
                throw new BadRequest("the body must be a JSON object such as {\"count\": 3}");
            }
            value = root.get("count");
        }
        String text = query != null ? query : value != null ? value.asText() : "1";
        if (value != null && query == null && !value.isIntegralNumber()) {
            throw new BadRequest("count must be a whole number, not " + value);
        }
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new BadRequest("count must be a whole number, not \"" + text + "\"");
        }
    }

    private void lag(Context ctx) {
        List<Map<String, Object>> clients = new ArrayList<>();
        for (ClientLag lag : engine.changes().lag()) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("client", lag.client());
            c.put("position", lag.position());
            c.put("pending", lag.pending());
            c.put("oldestPendingMillis", lag.oldestPending() == null ? null : lag.oldestPending().toMillis());
            c.put("touchedAt", lag.touchedAt().toString());
            c.put("heldBy", lag.heldBy());
            clients.add(c);
        }
        json(ctx, HttpStatus.OK, Map.of("clients", clients));
    }

    private void describe(Context ctx) {
        Dispenser d = dispenser(ctx);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("dispenser", d.name());
        body.put("current", d.current());
        body.put("start", d.config().start());
        body.put("format", d.config().format());
        body.put("reset", d.config().reset().name());
        body.put("register", d.config().register());
        json(ctx, HttpStatus.OK, body);
    }

    private static HttpStatus statusOf(EngineRuntimeException e) {
        return switch (e.getExceptionCode()) {
            case E_OBJECT_NOT_FOUND, E_CLASS_NOT_FOUND -> HttpStatus.NOT_FOUND;
            case E_BAD_VALUE, E_PROPERTY_NOT_DEFINED -> HttpStatus.BAD_REQUEST;
            case E_ACCESS_DENIED -> HttpStatus.FORBIDDEN;
            case E_OBJECT_LOCKED, E_OBJECT_MODIFIED -> HttpStatus.CONFLICT;
            case E_LEASE_LAPSED -> HttpStatus.GONE;
            case E_RETRY_EXHAUSTED, E_DATABASE_UNAVAILABLE -> HttpStatus.SERVICE_UNAVAILABLE;
            default -> HttpStatus.INTERNAL_SERVER_ERROR;
        };
    }

    static void error(Context ctx, HttpStatus status, String message, String code) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", message);
        body.put("code", code);
        json(ctx, status, body);
    }

    static void json(Context ctx, HttpStatus status, Object body) {
        try {
            ctx.status(status).contentType("application/json").result(JSON.writeValueAsString(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
