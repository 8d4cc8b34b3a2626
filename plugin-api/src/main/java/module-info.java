/**
 * Turnstile's contract: what a host application compiles against. The core (engine, sessions,
 * object store, objects, errors, configuration) is {@code dev.turnstile.api}; each capability has
 * a package of its own, as the JCR API keeps {@code javax.jcr.lock} beside {@code javax.jcr}.
 * {@code dev.turnstile.spi} is what a host or an engine implements. {@code dev.turnstile.internal}
 * is shared by the configuration types and is not exported.
 */
module dev.turnstile.api {
    requires transitive java.sql;

    exports dev.turnstile.api;
    exports dev.turnstile.api.changes;
    exports dev.turnstile.api.dispenser;
    exports dev.turnstile.api.editlock;
    exports dev.turnstile.api.retry;
    exports dev.turnstile.api.treelock;
    exports dev.turnstile.spi;

    uses dev.turnstile.spi.EngineProvider;
}
