package dev.turnstile.api;

import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The property values an instance holds. {@code putValue} only changes the instance: the change is
 * pending until {@link IndependentObject#save(RefreshMode)}, which validates it against the class
 * definition. Reading a property the instance did not fetch fails with
 * {@link ExceptionCode#API_PROPERTY_NOT_IN_CACHE}.
 */
public interface Properties {
    /** Sets a custom property; null clears it. System properties are read-only. */
    void putValue(String name, Object value);

    Object getObjectValue(String name);

    String getStringValue(String name);

    Integer getInteger32Value(String name);

    Long getInt64Value(String name);

    Double getFloat64Value(String name);

    Boolean getBooleanValue(String name);

    Instant getDateTimeValue(String name);

    UUID getIdValue(String name);

    /** Whether the instance holds a value (possibly null) for this property. */
    boolean isPropertyPresent(String name);

    /** Names of the custom properties present in the instance. */
    Set<String> names();

    /** A copy of the custom property values present in the instance. */
    Map<String, Object> toMap();
}
