package dev.turnstile.api;

import java.time.Instant;
import java.util.UUID;

/** The property types of a class definition, with the Java type each value has. */
public enum PropertyType {
    STRING(String.class),
    INTEGER32(Integer.class),
    INT64(Long.class),
    FLOAT64(Double.class),
    BOOLEAN(Boolean.class),
    DATETIME(Instant.class),
    ID(UUID.class);

    private final Class<?> javaType;

    PropertyType(Class<?> javaType) {
        this.javaType = javaType;
    }

    public Class<?> javaType() {
        return javaType;
    }
}
