package dev.turnstile.api;

import dev.turnstile.spi.HostTransactions;

/**
 * Why an engine call failed. The names follow FileNet P8's {@code ExceptionCode} where FileNet has
 * the case; the {@code E_RETRY_*}, {@code E_CONFIG_*}, {@code E_DATABASE_*} and
 * {@code E_INTERRUPTED}, {@code E_LOCK_TIMEOUT}, {@code E_LEASE_LAPSED} and
 * {@code E_HOST_TRANSACTION} and {@code E_ENGINE_CLOSED} codes are Turnstile's own.
 */
public enum ExceptionCode {
    /** A save carried an update sequence number that no longer matches the stored one. */
    E_OBJECT_MODIFIED,
    /** The object is locked by another user. */
    E_OBJECT_LOCKED,
    /** Unlock of an object that holds no (unexpired) lock. */
    E_OBJECT_NOT_LOCKED,
    /** Lock requested on a class that cannot be locked. */
    E_OBJECT_NOT_LOCKABLE,
    /** No object with that id and class exists. */
    E_OBJECT_NOT_FOUND,
    /** The session's user may not do this. */
    E_ACCESS_DENIED,
    /** A value does not fit its property definition, or an argument is out of range. */
    E_BAD_VALUE,
    /** The class has no property of that name. */
    E_PROPERTY_NOT_DEFINED,
    /** The class is not defined in this object store. */
    E_CLASS_NOT_FOUND,
    /** The property was not fetched into this instance (excluded by its property filter). */
    API_PROPERTY_NOT_IN_CACHE,
    /** A change preprocessor refused the change; the transaction was rolled back. */
    E_PREPROCESSOR_FAILED,
    /** A retry policy gave up. */
    E_RETRY_EXHAUSTED,
    /** The engine configuration is invalid. */
    E_CONFIG_INVALID,
    /** The database could not be reached or failed unexpectedly. */
    E_DATABASE_UNAVAILABLE,
    /** The calling thread was interrupted; its interrupt flag is kept. */
    E_INTERRUPTED,
    /** A tree lock was not granted within the time the caller would wait. */
    E_LOCK_TIMEOUT,
    /** A lease (a tree lock) lapsed before its holder renewed it: the holder no longer holds it. */
    E_LEASE_LAPSED,
    /**
     * An operation that needs transactions of its own was called inside the host's transaction
     * (see {@link HostTransactions}); nothing was done.
     */
    E_HOST_TRANSACTION,
    /** The engine was closed; a closed engine does nothing more (open a new one). */
    E_ENGINE_CLOSED
}
