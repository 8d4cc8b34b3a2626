package dev.turnstile.engine.config;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.editlock.EditLockConfig;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.annotation.JsonDeserialize;

import java.time.Duration;

/**
 * The sections of {@code turnstile.yaml}, one record per capability, as {@link Binding} binds them
 * (a key not among a record's components is unknown); each sets what it holds on the engine's
 * builder, which checks every range. The sections whose keys are an API builder's setters
 * ({@code locks}, {@code treeLocks}, {@code changes}) have no record here: they are bound into the
 * builder, as the retry policies and the dispenser series are ({@link RetryPolicyReader},
 * {@link DispenserConfigReader}).
 */
final class Sections {
    private Sections() {
    }

    /** The top level: each section is bound on its own, so that {@code check-config} reports each one's first error. */
    record Root(JsonNode database, JsonNode locks, JsonNode retry, JsonNode dispensers, JsonNode treeLocks, JsonNode changes,
                JsonNode editLocks) {
        /** The sections the tree has, whatever else it holds (a scalar holds none). */
        static Root of(JsonNode root) {
            return new Root(root.get("database"), root.get("locks"), root.get("retry"), root.get("dispensers"), root.get("treeLocks"),
                    root.get("changes"), root.get("editLocks"));
        }
    }

    record Database(String url, String username, String password, Integer maxPoolSize, Duration connectionTimeout,
                    Duration idleTransactionTimeout, Boolean migrate, Boolean severalGaleraWriters) {
        void applyTo(EngineConfig.Builder b) {
            if (url != null) {
                b.jdbcUrl(url);
            }
            if (username != null) {
                b.username(username);
            }
            if (password != null) {
                b.password(password);
            }
            if (maxPoolSize != null) {
                b.maxPoolSize(maxPoolSize);
            }
            if (connectionTimeout != null) {
                b.connectionTimeout(connectionTimeout);
            }
            if (idleTransactionTimeout != null) {
                b.idleTransactionTimeout(idleTransactionTimeout);
            }
            if (migrate != null) {
                b.migrate(migrate);
            }
            if (severalGaleraWriters != null) {
                b.severalGaleraWriters(severalGaleraWriters);
            }
        }
    }

    /** {@code types} is a mapping of resource types, each an {@link EditLockType}. */
    record EditLocks(JsonNode types, Duration auditRetention) {
    }

    /** One resource type with the paper's keys; heartbeat and timeout in milliseconds (as the paper) or as durations. */
    record EditLockType(@JsonDeserialize(using = Binding.MillisOrDuration.class) Duration heartbeat,
                        @JsonDeserialize(using = Binding.MillisOrDuration.class) Duration timeout,
                        @JsonDeserialize(using = Binding.Flag.class) Boolean isMinimum, String htmlTags, Integer maxLocksPerUser) {
        EditLockConfig config(String source, String path, JsonNode written) {
            EditLockConfig d = EditLockConfig.DEFAULTS;
            try {
                return new EditLockConfig(heartbeat != null ? heartbeat : d.heartbeat(), timeout != null ? timeout : d.timeout(),
                        isMinimum != null ? isMinimum : d.isMinimum(), htmlTags != null ? EditLockConfig.parseTags(htmlTags) : d.htmlTags(),
                        maxLocksPerUser != null ? maxLocksPerUser : d.maxLocksPerUser());
            } catch (EngineRuntimeException e) {
                throw EngineRuntimeException.configInvalid(source, path, written.toString(), e.getMessage());
            }
        }
    }

    /** {@code series} is a mapping of dispenser names, each bound into a {@code DispenserConfig} builder. */
    record Dispensers(String adminRole, JsonNode series) {
    }

    /** {@code configs} and {@code instances} are read by {@link RetryPolicyReader}, with the policy file's. */
    record Retry(JsonNode configs, JsonNode instances, String policyFile, String reload) {
    }

    /** A policy file: {@code configs} and {@code instances}. */
    record PolicyFile(JsonNode configs, JsonNode instances) {
    }

    /** A policy file in Spring Boot's form, {@code resilience4j.retry.…}, and nothing else. */
    record SpringPolicyFile(Resilience4j resilience4j) {
        record Resilience4j(JsonNode retry) {
        }
    }
}
