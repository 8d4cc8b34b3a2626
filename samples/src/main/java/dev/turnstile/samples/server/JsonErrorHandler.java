package dev.turnstile.samples.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.HttpStatus;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Jetty's own errors — a request it refuses before the application sees it (a URI too long, a path
 * with {@code %00}) — as the same JSON {@code {"error", "code"}} every other error has, not HTML.
 */
final class JsonErrorHandler extends ErrorHandler {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
                                    Callback callback) {
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(body(code, message)), callback);
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        fields.put(new HttpField(HttpHeader.CONTENT_TYPE, "application/json"));
        return ByteBuffer.wrap(body(status, reason));
    }

    private static byte[] body(int code, String message) {
        HttpStatus status = HttpStatus.forStatus(code);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", message == null || message.isBlank() ? status.getMessage().toLowerCase(Locale.ROOT) : message);
        body.put("code", status == HttpStatus.UNKNOWN ? "HTTP_" + code : status.name());
        try {
            return JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
