/**
 * The engine, found by {@code ContentEngine.open} through {@link java.util.ServiceLoader}: it
 * exports nothing, so on the module path a host reaches it only through the plugin API. Its
 * entities and configuration sections are opened to Hibernate and Jackson, its migrations to
 * Flyway, and no further.
 */
module dev.turnstile.engine {
    requires dev.turnstile.api;
    requires java.naming;
    requires java.sql;
    requires java.xml;
    requires jdk.unsupported;
    requires jakarta.persistence;
    requires org.hibernate.orm.core;
    requires com.zaxxer.hikari;
    requires flyway.core;
    requires com.github.benmanes.caffeine;
    requires io.github.resilience4j.core;
    requires io.github.resilience4j.retry;
    requires tools.jackson.core;
    requires tools.jackson.databind;
    requires tools.jackson.dataformat.yaml;
    requires tools.jackson.dataformat.properties;
    requires org.snakeyaml.engine;
    requires org.jsoup;
    requires org.slf4j;
    requires static com.h2database;
    requires static org.postgresql.jdbc;

    opens dev.turnstile.engine.objects to org.hibernate.orm.core, tools.jackson.databind;
    opens dev.turnstile.engine.dispenser to org.hibernate.orm.core, tools.jackson.databind;
    opens dev.turnstile.engine.treelock to org.hibernate.orm.core, tools.jackson.databind;
    opens dev.turnstile.engine.changes to org.hibernate.orm.core, tools.jackson.databind;
    opens dev.turnstile.engine.editlock to org.hibernate.orm.core;
    opens dev.turnstile.engine.breaks to org.hibernate.orm.core;
    opens dev.turnstile.engine.config to tools.jackson.databind;
    // Flyway makes the engine's quiet logger from its class name (Migrations.QuietLog).
    exports dev.turnstile.engine.db to flyway.core;
    opens dev.turnstile.engine.db.migration.h2;
    opens dev.turnstile.engine.db.migration.postgresql;
    opens dev.turnstile.engine.db.migration.mariadb;

    provides dev.turnstile.spi.EngineProvider with dev.turnstile.engine.TurnstileEngineProvider;
}
