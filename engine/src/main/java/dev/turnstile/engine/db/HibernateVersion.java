package dev.turnstile.engine.db;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Hibernate ORM on the class path, checked before the engine touches it. A host application
 * chooses it (Spring Boot manages it for its applications); an older one failed deep inside the
 * open with a {@code NoClassDefFoundError} that named neither version.
 */
public final class HibernateVersion {
    /** The oldest Hibernate ORM the engine runs on: 7.2 (Spring Boot 4.0's); its own tests run on 7.4. */
    static final int MAJOR = 7;
    static final int MINOR = 2;
    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+).*");

    private HibernateVersion() {
    }

    /** Refuses the class path's Hibernate ORM if it is older than the engine needs. */
    public static void check() {
        check(org.hibernate.Version.getVersionString());
    }

    static void check(String found) {
        Matcher m = VERSION.matcher(found == null ? "" : found);
        boolean supported = m.matches() && (Integer.parseInt(m.group(1)) > MAJOR
                || Integer.parseInt(m.group(1)) == MAJOR && Integer.parseInt(m.group(2)) >= MINOR);
        if (!supported) {
            throw EngineRuntimeException.of(ExceptionCode.E_CONFIG_INVALID, "Turnstile needs Hibernate ORM " + MAJOR + "." + MINOR
                    + " or later, and the class path has Hibernate ORM " + found + ". The application chooses it: on Spring Boot 3"
                    + " (Hibernate 6.6) set the property hibernate.version to 7.4.15.Final, or use Spring Boot 4.");
        }
    }
}
