package dev.turnstile.engine.db;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Hibernate ORM and Jakarta Persistence on the class path, checked before the engine touches
 * them. A host application chooses them (Spring Boot manages them for its applications); an older
 * one failed deep inside the open with a {@code NoClassDefFoundError} that named neither version.
 */
public final class HibernateVersion {
    /** The oldest Hibernate ORM the engine runs on: 7.1 (Spring Boot 4.0.0 has 7.1.8); its own tests run on 7.4. */
    static final int MAJOR = 7;
    static final int MINOR = 1;
    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+).*");

    private HibernateVersion() {
    }

    /** Refuses the class path's Hibernate ORM or Jakarta Persistence if it is older than the engine needs. */
    public static void check() {
        check(org.hibernate.Version.getVersionString(), persistence32Missing());
    }

    /** {@code olderPersistence}: the Jakarta Persistence found where it is older than 3.2, else null. */
    static void check(String hibernate, String olderPersistence) {
        Matcher m = VERSION.matcher(hibernate == null ? "" : hibernate);
        boolean supported = m.matches() && (Integer.parseInt(m.group(1)) > MAJOR
                || Integer.parseInt(m.group(1)) == MAJOR && Integer.parseInt(m.group(2)) >= MINOR);
        if (!supported) {
            throw EngineRuntimeException.of(ExceptionCode.E_CONFIG_INVALID, "Turnstile needs Hibernate ORM " + MAJOR + "." + MINOR
                    + " or later, and the class path has Hibernate ORM " + hibernate + ". The application chooses it: Spring Boot 4"
                    + " manages a Hibernate ORM 7; Spring Boot 3 manages 6.6, on which Turnstile does not run.");
        }
        if (olderPersistence != null) {
            throw EngineRuntimeException.of(ExceptionCode.E_CONFIG_INVALID, "Turnstile needs Jakarta Persistence 3.2"
                    + " (jakarta.persistence:jakarta.persistence-api), as Hibernate ORM " + hibernate + " does, and the class path has "
                    + olderPersistence + ". The application chooses it: Spring Boot 4 manages 3.2; elsewhere depend on 3.2.0.");
        }
    }

    private static String persistence32Missing() {
        try {
            Class.forName("jakarta.persistence.PersistenceConfiguration", false, HibernateVersion.class.getClassLoader());
            return null;
        } catch (ClassNotFoundException older) {
            Package api = jakarta.persistence.Persistence.class.getPackage();
            return Objects.requireNonNullElse(api.getImplementationVersion(), "an older version");
        }
    }
}
