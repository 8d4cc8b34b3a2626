package dev.turnstile.engine.db;

import dev.turnstile.api.EngineRuntimeException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HibernateVersionTest {
    @Test
    void spring_boot_3s_hibernate_isRefused_namingBothVersions() {
        assertThatThrownBy(() -> HibernateVersion.check("6.6.13.Final", null))
                .isInstanceOf(EngineRuntimeException.class)
                .hasMessage("E_CONFIG_INVALID: Turnstile needs Hibernate ORM 7.1 or later, and the class path has Hibernate ORM"
                        + " 6.6.13.Final. The application chooses it: Spring Boot 4 manages a Hibernate ORM 7; Spring Boot 3"
                        + " manages 6.6, on which Turnstile does not run.");
        assertThatThrownBy(() -> HibernateVersion.check("7.0.10.Final", null)).hasMessageContaining("has Hibernate ORM 7.0.10.Final");
        assertThatThrownBy(() -> HibernateVersion.check("[WORKING]", null)).hasMessageContaining("has Hibernate ORM [WORKING]");
    }

    @Test
    void hibernate7_withJakartaPersistence31_isRefused_namingIt() {
        // Spring Boot 3.5 with hibernate.version raised and its Jakarta Persistence 3.1 left: a
        // NoClassDefFoundError (jakarta/persistence/PersistenceConfiguration) deep in the open, before.
        assertThatThrownBy(() -> HibernateVersion.check("7.4.15.Final", "3.1.0"))
                .hasMessage("E_CONFIG_INVALID: Turnstile needs Jakarta Persistence 3.2 (jakarta.persistence:jakarta.persistence-api),"
                        + " as Hibernate ORM 7.4.15.Final does, and the class path has 3.1.0. The application chooses it: Spring Boot 4"
                        + " manages 3.2; elsewhere depend on 3.2.0.");
    }

    @Test
    void spring_boot_4s_and_the_engines_own_areAccepted() {
        assertThatCode(() -> HibernateVersion.check("7.1.8.Final", null)).as("Spring Boot 4.0.0's").doesNotThrowAnyException();
        assertThatCode(() -> HibernateVersion.check("7.2.19.Final", null)).doesNotThrowAnyException();
        assertThatCode(() -> HibernateVersion.check("7.4.15.Final", null)).doesNotThrowAnyException();
        assertThatCode(() -> HibernateVersion.check("8.0.0.Beta1", null)).doesNotThrowAnyException();
        assertThatCode(HibernateVersion::check).doesNotThrowAnyException();
    }
}
