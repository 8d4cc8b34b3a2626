package dev.turnstile.engine.db;

import dev.turnstile.api.EngineRuntimeException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HibernateVersionTest {
    @Test
    void spring_boot_3s_hibernate_isRefused_namingBothVersions() {
        assertThatThrownBy(() -> HibernateVersion.check("6.6.13.Final"))
                .isInstanceOf(EngineRuntimeException.class)
                .hasMessage("E_CONFIG_INVALID: Turnstile needs Hibernate ORM 7.2 or later, and the class path has Hibernate ORM"
                        + " 6.6.13.Final. The application chooses it: on Spring Boot 3 (Hibernate 6.6) set the property"
                        + " hibernate.version to 7.4.15.Final, or use Spring Boot 4.");
        assertThatThrownBy(() -> HibernateVersion.check("7.1.8.Final")).hasMessageContaining("has Hibernate ORM 7.1.8.Final");
        assertThatThrownBy(() -> HibernateVersion.check("[WORKING]")).hasMessageContaining("has Hibernate ORM [WORKING]");
    }

    @Test
    void spring_boot_4s_and_the_engines_own_areAccepted() {
        assertThatCode(() -> HibernateVersion.check("7.2.19.Final")).doesNotThrowAnyException();
        assertThatCode(() -> HibernateVersion.check("7.4.15.Final")).doesNotThrowAnyException();
        assertThatCode(() -> HibernateVersion.check("8.0.0.Beta1")).doesNotThrowAnyException();
        assertThatCode(HibernateVersion::check).doesNotThrowAnyException();
    }
}
