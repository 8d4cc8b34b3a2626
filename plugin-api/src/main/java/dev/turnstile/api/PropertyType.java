package dev.turnstile.api;

import java.time.Instant;
import java.util.UUID;

/** The property types of a class definition, with the Java type each value has. */
public enum PropertyType {
    /** Text, {@link String}. */
    STRING(String.class),
    /** A 32-bit integer, {@link Integer}. */
    INTEGER32(Integer.class),
    /** A 64-bit integer, {@link Long}. */
    INT64(Long.class),
    /** A double-precision number, {@link Double}. */
    FLOAT64(Double.class),
    /** A {@link Boolean}. */
    BOOLEAN(Boolean.class),
    /** A moment, {@link java.time.Instant}. */
    DATETIME(Instant.class),
    /** An id, {@link java.util.UUID}. */
    ID(UUID.class);

    private final Class<?> javaType;

    PropertyType(Class<?> javaType) {
        this.javaType = javaType;
    }

    /** The Java type of its values. */
    public Class<?> javaType() {
        return javaType;
    }
}
