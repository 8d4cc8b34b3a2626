package dev.turnstile.samples.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.NumberBlock;
import dev.turnstile.api.dispenser.RegisterReport;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The dispensers' HTTP API for workflows: {@code POST /api/dispensers/{name}/next} (a count, and an
 * {@code Idempotency-Key} a retry sends again) and {@code GET /api/dispensers/{name}}, as the
 * authenticated user; for the console, {@code POST /api/dispensers/{name}/void} {@code {"number",
 * "reason"}} (the dispenser admin role), which the register keeps with who voided it and why.
 */
final class DispenserRoutes {
    /** The header a workflow sends again with a retry: it gets the numbers first issued. */
    static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    /** The most numbers one {@code next} call takes: its answer lists every one formatted. */
    static final int MAX_COUNT = 1000;

    private final ContentEngine engine;

    DispenserRoutes(ContentEngine engine) {
        this.engine = engine;
    }

    private Dispenser dispenser(Context ctx) {
        ServerUsers.User user = ctx.attribute(TurnstileServer.USER);
        return engine.session(user.name(), user.roles()).dispensers().get(ctx.pathParam("name"));
    }

    void voidNumber(Context ctx) {
        JsonNode body = TurnstileServer.jsonBody(ctx);
        if (body.size() != 2 || !body.path("number").isIntegralNumber() || !body.path("number").canConvertToLong()
                || !body.path("reason").isTextual()) {
            throw new TurnstileServer.BadRequest("the body must be {\"number\": the issued number, \"reason\": text}");
        }
        Dispenser d = dispenser(ctx);
        long number = body.get("number").longValue();
        d.voidNumber(number, body.get("reason").asText());
        TurnstileServer.json(ctx, HttpStatus.OK, Map.of("dispenser", d.name(), "voided", number));
    }

    void next(Context ctx) {
        int count = count(ctx);
        Dispenser d = dispenser(ctx);
        // A workflow that retries a call that timed out sends the same key: it gets the same numbers.
        String key = ctx.header(IDEMPOTENCY_KEY);
        NumberBlock block = key == null ? d.next(count) : d.next(count, key);
        List<String> formatted = new ArrayList<>();
        for (long n = block.first(); n <= block.last(); n++) {
            formatted.add(d.format(block, n));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("dispenser", d.name());
        body.put("first", block.first());
        body.put("last", block.last());
        body.put("count", block.count());
        body.put("formatted", formatted);
        TurnstileServer.json(ctx, HttpStatus.OK, body);
    }

    /**
     * From {@code ?count=} or a JSON body {@code {"count": n}}, not both; 1 when neither; 1 to
     * {@link #MAX_COUNT}. Anything else in the body is refused: a workflow's typo must not take a number.
     */
    private static int count(Context ctx) {
        String query = ctx.queryParam("count");
        JsonNode body = TurnstileServer.jsonBody(ctx);
        body.fieldNames().forEachRemaining(key -> {
            if (!key.equals("count")) {
                throw new TurnstileServer.BadRequest("unknown key '" + key + "' in the body; it holds only count");
            }
        });
        JsonNode value = body.get("count");
        if (value != null && query != null) {
            throw new TurnstileServer.BadRequest("count is given twice (?count=" + query + " and the body's " + value + "); give it once");
        }
        if (value != null && !value.isIntegralNumber()) {
            throw new TurnstileServer.BadRequest("count must be a whole number, not " + value);
        }
        String text = query != null ? query : value != null ? value.asText() : "1";
        int count;
        try {
            count = Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new TurnstileServer.BadRequest("count must be a whole number, not \"" + text + "\"");
        }
        if (count < 1 || count > MAX_COUNT) {
            throw new TurnstileServer.BadRequest("count must be from 1 to " + MAX_COUNT + " per call, not " + count);
        }
        return count;
    }

    void describe(Context ctx) {
        Dispenser d = dispenser(ctx);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("dispenser", d.name());
        body.put("current", d.current());
        body.put("start", d.config().start());
        body.put("format", d.config().format());
        body.put("reset", d.config().reset().name());
        body.put("register", d.config().register());
        if (d.config().register()) {
            body.put("report", report(d.report(d.config().start(), ConsoleRoutes.MAX_ROWS)));
        }
        TurnstileServer.json(ctx, HttpStatus.OK, body);
    }

    /** The current period's account: issued, voided, missing, and the numbers in doubt with who took them and when. */
    static Map<String, Object> report(RegisterReport r) {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("period", r.period());
        report.put("first", r.first());
        report.put("last", r.last());
        report.put("issued", r.issued());
        report.put("voided", r.voided());
        report.put("missingCount", r.missingCount());
        report.put("missing", r.missing().stream().map(range -> range.first() == range.last() ? "" + range.first()
                : range.first() + "–" + range.last()).toList());
        report.put("inDoubtCount", r.inDoubt());
        report.put("inDoubt", r.numbersInDoubt().stream().map(n -> Map.of("number", n.number(), "issuedBy", n.issuedBy(),
                "issuedAt", n.issuedAt().toString())).toList());
        return report;
    }
}
