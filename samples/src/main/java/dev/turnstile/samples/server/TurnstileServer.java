package dev.turnstile.samples.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineRuntimeException;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
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
 *   <li>{@code POST /api/dispensers/{name}/next} and {@code GET /api/dispensers/{name}} of {@link DispenserRoutes}
 *   <li>{@code POST /login} and the edit lock endpoints of {@link EditRoutes}
 *   <li>{@code GET /api/changes/lag}: every change feed client's position, pending changes and the
 *       age of the oldest, and which dispatcher holds it
 * </ul>
 */
public final class TurnstileServer implements AutoCloseable {
    /** Largest request body accepted; anything bigger is refused with 413 before it is read. */
    public static final long MAX_BODY_BYTES = 64 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Request bodies: a key given twice, or anything after the JSON value, is refused (a lenient reader took the last key). */
    private static final ObjectMapper STRICT = JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
    static final String USER = "turnstile.user";
    /** The page's session cookie: a random session id (never an API token); HttpOnly, SameSite=Strict. */
    static final String SESSION_COOKIE = "turnstile_session";
    /** The header the page sends its session's CSRF token in, on every request that changes something. */
    static final String CSRF_HEADER = "X-CSRF-Token";
    /** The header a workflow repeats on a retried {@code next}: the retry gets the numbers first issued for it. */
    /**
     * The article page may run only its own script and talk only to this server; articles may show
     * images from https sites; nothing may frame it.
     */
    public static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline';"
            + " img-src 'self' https:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
    private static final String PAGE = resource("/web/article.html");
    private static final String PAGE_SCRIPT = resource("/web/article.js");
    private static final String CONSOLE = resource("/web/console.html");
    private static final String CONSOLE_SCRIPT = resource("/web/console.js");
    private static final String SESSION_SCRIPT = resource("/web/session.js");

    private final ContentEngine engine;
    private final ServerUsers users;
    private final Sessions sessions;
    private final LoginThrottle throttle;
    private final Javalin app;

    public TurnstileServer(ContentEngine engine, ServerUsers users) {
        this(engine, users, Clock.systemUTC());
    }

    /** With the clock that ends sessions and login throttles (a test's, to move it). */
    public TurnstileServer(ContentEngine engine, ServerUsers users, Clock clock) {
        this.engine = engine;
        this.users = users;
        this.sessions = new Sessions(clock, Sessions.IDLE, Sessions.ABSOLUTE);
        this.throttle = new LoginThrottle(clock);
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.http.maxRequestSize = MAX_BODY_BYTES;
            // Errors Jetty answers itself (a 414, a bad path) are JSON too.
            config.jetty.modifyServer(server -> server.setErrorHandler(new JsonErrorHandler()));
            config.jetty.modifyServletContextHandler(context -> context.insertHandler(new Admission(engine.config().maxPoolSize())));
            config.routes.before(TurnstileServer::securityHeaders);
            config.routes.post("/login", this::login);
            config.routes.post("/logout", this::logout);
            config.routes.get("/", ctx -> ctx.contentType("text/html; charset=utf-8").result(CONSOLE));
            config.routes.get("/console.js", ctx -> ctx.contentType("text/javascript; charset=utf-8").result(CONSOLE_SCRIPT));
            config.routes.get("/session.js", ctx -> ctx.contentType("text/javascript; charset=utf-8").result(SESSION_SCRIPT));
            config.routes.get("/edit/{type}/{id}", ctx -> ctx.contentType("text/html; charset=utf-8").result(PAGE));
            config.routes.get("/article.js", ctx -> ctx.contentType("text/javascript; charset=utf-8").result(PAGE_SCRIPT));
            config.routes.before("/api/*", this::authenticate);
            config.routes.get("/api/session", this::session);
            DispenserRoutes dispensers = new DispenserRoutes(engine);
            config.routes.post("/api/dispensers/{name}/next", dispensers::next);
            config.routes.post("/api/dispensers/{name}/void", dispensers::voidNumber);
            config.routes.get("/api/dispensers/{name}", dispensers::describe);
            config.routes.get("/api/changes/lag", this::lag);
            ConsoleRoutes console = new ConsoleRoutes(engine);
            config.routes.get("/api/console", console::show);
            config.routes.get("/api/console/audit", console::audit);
            config.routes.post("/api/tree-locks/{lockToken}/break", console::breakTreeLock);
            config.routes.post("/api/objects/{className}/{id}/lock/break", console::breakObjectLock);
            EditRoutes edit = new EditRoutes(engine);
            config.routes.get("/api/articles/{type}/{id}", edit::show);
            config.routes.put("/api/articles/{type}/{id}", edit::create);
            config.routes.post("/api/articles/{type}/{id}/locks", edit::acquire);
            config.routes.post("/api/locks/{lockId}/heartbeat", edit::heartbeat);
            config.routes.post("/api/locks/{lockId}/release", edit::release);
            config.routes.post("/api/locks/{lockId}/save", edit::save);
            config.routes.post("/api/locks/{lockId}/break", edit::breakLock);
            config.routes.exception(EngineRuntimeException.class, (e, ctx) -> error(ctx, statusOf(e), e.getMessage(),
                    e.getExceptionCode().name()));
            config.routes.exception(BadRequest.class, (e, ctx) -> error(ctx, HttpStatus.BAD_REQUEST, e.getMessage(), "BAD_REQUEST"));
            config.routes.exception(Forbidden.class, (e, ctx) -> error(ctx, HttpStatus.FORBIDDEN, e.getMessage(), "FORBIDDEN"));
            config.routes.exception(HttpResponseException.class, (e, ctx) -> error(ctx, HttpStatus.forStatus(e.getStatus()),
                    e.getMessage(), HttpStatus.forStatus(e.getStatus()).name()));
            for (HttpStatus status : List.of(HttpStatus.NOT_FOUND, HttpStatus.METHOD_NOT_ALLOWED, HttpStatus.CONTENT_TOO_LARGE)) {
                config.routes.error(status.getCode(), "*", ctx -> {
                    if (!"application/json".equals(ctx.res().getContentType())) {
                        error(ctx, status, status.getMessage().toLowerCase(java.util.Locale.ROOT) + ": " + ctx.method() + " "
                                + ctx.path(), status.name());
                    }
                });
            }
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

    private static void securityHeaders(Context ctx) {
        ctx.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("X-Frame-Options", "DENY");
        ctx.header("Referrer-Policy", "same-origin");
        ctx.header("Cache-Control", "no-store");
    }

    /**
     * {@code {"user", "password"}} → a new session: its cookie, and {@code {"user", "csrf"}}; 401 for a
     * wrong pair, 429 with Retry-After while the name, or the name from this address, is throttled.
     */
    private void login(Context ctx) {
        requireSameOriginJson(ctx);
        JsonNode body = jsonBody(ctx);
        String user = body.path("user").asText(null);
        // By the account, and by the account from this address: behind the reverse proxy the loopback
        // binding implies, one address is everyone, and one user's guesses must not lock another out.
        String byName = "user:" + user;
        String byAddress = "address:" + ctx.ip() + " user:" + user;
        Duration wait = max(throttle.wait(byName), throttle.wait(byAddress));
        if (!wait.isZero()) {
            long seconds = (wait.toMillis() + 999) / 1000; // rounded up: a client that waits that long is let in
            ctx.header("Retry-After", Long.toString(seconds));
            error(ctx, HttpStatus.TOO_MANY_REQUESTS, "too many wrong passwords: try again in " + seconds + " s", "TOO_MANY_REQUESTS");
            return;
        }
        ServerUsers.User found = users.login(user, body.path("password").asText(null)).orElse(null);
        if (found == null) {
            throttle.failed(byName);
            throttle.failed(byAddress);
            error(ctx, HttpStatus.UNAUTHORIZED, "wrong user or password", "UNAUTHORIZED");
            return;
        }
        throttle.succeeded(byName);
        throttle.succeeded(byAddress);
        sessions.close(ctx.cookie(SESSION_COOKIE)); // a login never continues an earlier session (fixation)
        Sessions.Session session = sessions.open(found);
        ctx.header("Set-Cookie", SESSION_COOKIE + "=" + session.id() + "; Path=/; HttpOnly; SameSite=Strict");
        json(ctx, HttpStatus.OK, Map.of("user", found.name(), "csrf", session.csrf()));
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** Ends the cookie's session (if any) and clears the cookie; 204. */
    private void logout(Context ctx) {
        requireSameOriginJson(ctx);
        sessions.close(ctx.cookie(SESSION_COOKIE));
        ctx.header("Set-Cookie", SESSION_COOKIE + "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
        ctx.status(HttpStatus.NO_CONTENT);
    }

    /** {@code GET /api/session}: who is signed in and the session's CSRF token (same-origin scripts only can read it). */
    private void session(Context ctx) {
        Sessions.Session s = ctx.attribute(SESSION);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("user", ((ServerUsers.User) ctx.attribute(USER)).name());
        body.put("csrf", s == null ? null : s.csrf());
        json(ctx, HttpStatus.OK, body);
    }

    static final String SESSION = "turnstile.session";

    private static String resource(String name) {
        try (var in = TurnstileServer.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A bearer token (workflows) or a session cookie (the page). A cookie is sent by the browser on
     * its own, so with a cookie every request that changes something must also prove it comes from
     * this server's page: JSON (a cross-site form cannot send it), from this origin, and carrying
     * the session's CSRF token.
     */
    private void authenticate(Context ctx) {
        String header = ctx.header("Authorization");
        if (header != null && header.startsWith("Bearer ")) {
            ServerUsers.User user = users.authenticate(header.substring(7).trim()).orElse(null);
            if (user == null) {
                unauthorized(ctx);
                return;
            }
            ctx.attribute(USER, user);
            return;
        }
        Sessions.Session session = sessions.find(ctx.cookie(SESSION_COOKIE)).orElse(null);
        if (session == null) {
            unauthorized(ctx);
            return;
        }
        if (!"GET".equals(ctx.method().name())) {
            requireSameOriginJson(ctx);
            String csrf = ctx.header(CSRF_HEADER);
            if (csrf == null || !MessageDigest.isEqual(csrf.getBytes(StandardCharsets.UTF_8), session.csrf().getBytes(StandardCharsets.UTF_8))) {
                throw new Forbidden("missing or wrong " + CSRF_HEADER + " header for this session");
            }
        }
        ctx.attribute(USER, session.user());
        ctx.attribute(SESSION, session);
    }

    private static void unauthorized(Context ctx) {
        error(ctx, HttpStatus.UNAUTHORIZED, "authentication required: log in, or send Authorization: Bearer <token>", "UNAUTHORIZED");
        ctx.skipRemainingHandlers();
    }

    /**
     * A request that a page of another site could have sent is refused: its body must be declared
     * JSON (a cross-site form can only send text/plain, urlencoded or multipart without asking),
     * and the browser's Sec-Fetch-Site and Origin, when present, must say this site.
     */
    private static void requireSameOriginJson(Context ctx) {
        String type = ctx.contentType();
        if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith("application/json")) {
            throw new Forbidden("requests from the page must be JSON (Content-Type: application/json), not " + type);
        }
        String site = ctx.header("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            throw new Forbidden("cross-site request refused (Sec-Fetch-Site: " + site + ")");
        }
        String origin = ctx.header("Origin");
        String own = "http://" + ctx.host();
        if (origin != null && !origin.equals(own)) {
            throw new Forbidden("cross-origin request refused (Origin " + origin + ", this server " + own + ")");
        }
    }

    /** The request body as a JSON object (an empty body is {}); 400 otherwise, naming what is wrong. */
    static JsonNode jsonBody(Context ctx) {
        try {
            JsonNode body = STRICT.readTree(ctx.body().isBlank() ? "{}" : ctx.body());
            if (!body.isObject()) {
                throw new BadRequest("the body must be a JSON object");
            }
            return body;
        } catch (JsonProcessingException e) {
            String why = e.getOriginalMessage().startsWith("Trailing token") ? "text after the JSON object" : e.getOriginalMessage();
            throw new BadRequest("the body is not JSON: " + why);
        }
    }

    static final class Forbidden extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Forbidden(String message) {
            super(message);
        }
    }

    private void lag(Context ctx) {
        json(ctx, HttpStatus.OK, Map.of("clients", engine.changes().lag().stream().map(ConsoleRoutes::client).toList()));
    }

    private static HttpStatus statusOf(EngineRuntimeException e) {
        return switch (e.getExceptionCode()) {
            case E_OBJECT_NOT_FOUND, E_CLASS_NOT_FOUND -> HttpStatus.NOT_FOUND;
            case E_BAD_VALUE, E_PROPERTY_NOT_DEFINED, E_HOST_TRANSACTION -> HttpStatus.BAD_REQUEST;
            case E_ACCESS_DENIED -> HttpStatus.FORBIDDEN;
            case E_OBJECT_LOCKED, E_OBJECT_MODIFIED, E_OBJECT_NOT_LOCKED -> HttpStatus.CONFLICT;
            case E_OBJECT_NOT_LOCKABLE -> HttpStatus.BAD_REQUEST;
            case E_LEASE_LAPSED -> HttpStatus.GONE;
            case E_RETRY_EXHAUSTED, E_DATABASE_UNAVAILABLE, E_ENGINE_CLOSED -> HttpStatus.SERVICE_UNAVAILABLE;
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
