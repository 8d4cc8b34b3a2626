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

    /** The value of {@code name} as stored, or null. */
    Object getObjectValue(String name);

    /** The string value of {@code name}, or null. */
    String getStringValue(String name);

    /** The 32-bit integer value of {@code name}, or null. */
    Integer getInteger32Value(String name);

    /** The 64-bit integer value of {@code name}, or null. */
    Long getInt64Value(String name);

    /** The floating-point value of {@code name}, or null. */
    Double getFloat64Value(String name);

    /** The boolean value of {@code name}, or null. */
    Boolean getBooleanValue(String name);

    /** The date-time value of {@code name}, or null. */
    Instant getDateTimeValue(String name);

    /** The id value of {@code name}, or null. */
    UUID getIdValue(String name);

    /** Whether the instance holds a value (possibly null) for this property. */
    boolean isPropertyPresent(String name);

    /** Names of the custom properties present in the instance. */
    Set<String> names();

    /** A copy of the custom property values present in the instance. */
    Map<String, Object> toMap();
}
