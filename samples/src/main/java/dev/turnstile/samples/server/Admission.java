package dev.turnstile.samples.server;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.util.Callback;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * How many API requests run at once: as many as the engine has connections, so that none waits
 * for one (200 editors on a fresh server each waited up to 10 s for the pool, then got a bare 503).
 * The others queue, oldest first, for at most {@link #MAX_QUEUE_WAIT}; past that, or with
 * {@link #MAX_QUEUED} already queued, the answer is 503 with {@code Retry-After} at once. Jetty's
 * {@link QoSHandler} does the queueing; this says what a refusal says.
 */
final class Admission extends QoSHandler {
    static final Duration MAX_QUEUE_WAIT = Duration.ofSeconds(5);
    static final int MAX_QUEUED = 2_000;
    static final int RETRY_AFTER_SECONDS = 1;

    Admission(int concurrentRequests) {
        setMaxRequestCount(concurrentRequests);
        setMaxSuspend(MAX_QUEUE_WAIT);
        setMaxSuspendedRequestCount(MAX_QUEUED);
        includePath("/api/*");
    }

    @Override
    protected void reject(Request request, Response response, Callback callback, int status) {
        busy(response, callback);
    }

    @Override
    protected void failSuspended(Request request, Response response, Callback callback, int status, Throwable failure) {
        busy(response, callback);
    }

    private void busy(Response response, Callback callback) {
        response.setStatus(503);
        response.getHeaders().put(HttpHeader.RETRY_AFTER, Integer.toString(RETRY_AFTER_SECONDS));
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        String body = "{\"error\":\"the server is busy: " + getMaxRequestCount() + " requests run at once and the queue waited "
                + MAX_QUEUE_WAIT.toSeconds() + " s; nothing was done, try again after " + RETRY_AFTER_SECONDS
                + " s\",\"code\":\"SERVICE_UNAVAILABLE\"}";
        Content.Sink.write(response, true, body, callback);
    }
}
