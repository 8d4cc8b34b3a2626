package dev.turnstile.engine.objects;

import dev.turnstile.api.Properties;

import java.time.Instant;
import java.util.UUID;

/** The typed getters of {@link Properties}, on top of {@link #getObjectValue(String)}. */
abstract class AbstractProperties implements Properties {

    protected abstract String className();

    protected abstract UUID objectId();

    private <T> T typed(String name, Class<T> type) {
        return PropertyValues.as(getObjectValue(name), type, className(), objectId(), name);
    }

    @Override
    public String getStringValue(String name) {
        return typed(name, String.class);
    }

    @Override
    public Integer getInteger32Value(String name) {
        return typed(name, Integer.class);
    }

    @Override
    public Long getInt64Value(String name) {
        return typed(name, Long.class);
    }

    @Override
    public Double getFloat64Value(String name) {
        return typed(name, Double.class);
    }

    @Override
    public Boolean getBooleanValue(String name) {
        return typed(name, Boolean.class);
    }

    @Override
    public Instant getDateTimeValue(String name) {
        return typed(name, Instant.class);
    }

    @Override
    public UUID getIdValue(String name) {
        return typed(name, UUID.class);
    }
}
