package dev.turnstile.api;

import dev.turnstile.api.treelock.TreeLockRequest;

import java.util.Objects;
import java.util.UUID;

/**
 * Every failure of the engine. {@link #getExceptionCode()} says what kind; the message names the
 * object, class, property, value and update sequence numbers involved. Built only through the
 * static factories so that one code always has one message format.
 */
public class EngineRuntimeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ExceptionCode code;
    private final UUID objectId;
    private final Long requestedUsn;
    private final Long databaseUsn;
    /** For {@code E_CONFIG_INVALID}: where, and what is wrong there (the message is made of them). */
    private final ConfigProblem config;

    /** An exception of {@code code}; the USNs are those of an {@code E_OBJECT_MODIFIED}, else null. */
    protected EngineRuntimeException(ExceptionCode code, String message, UUID objectId,
                                     Long requestedUsn, Long databaseUsn, Throwable cause) {
        this(code, message, objectId, requestedUsn, databaseUsn, cause, null);
    }

    private EngineRuntimeException(ExceptionCode code, String message, UUID objectId,
                                   Long requestedUsn, Long databaseUsn, Throwable cause, ConfigProblem config) {
        super(code + ": " + message, cause);
        this.code = Objects.requireNonNull(code, "code");
        this.objectId = objectId;
        this.requestedUsn = requestedUsn;
        this.databaseUsn = databaseUsn;
        this.config = config;
    }

    private record ConfigProblem(String source, Integer line, String keyPath, String valueAndRule) implements java.io.Serializable {
        String message() {
            return source + (line != null ? ":" + line : "") + ": " + keyPath + " = " + valueAndRule;
        }
    }

    /** What went wrong, as FileNet names it. */
    public ExceptionCode getExceptionCode() {
        return code;
    }

    /** The object concerned, or null when the failure is not about one object. */
    public UUID getObjectId() {
        return objectId;
    }

    /** For {@link ExceptionCode#E_OBJECT_MODIFIED}: the USN the caller held. */
    public Long getRequestedUsn() {
        return requestedUsn;
    }

    /** For {@link ExceptionCode#E_OBJECT_MODIFIED}: the USN in the database (null if deleted). */
    public Long getDatabaseUsn() {
        return databaseUsn;
    }

    /** A failure of {@code code} with this message. */
    public static EngineRuntimeException of(ExceptionCode code, String message) {
        return new EngineRuntimeException(code, message, null, null, null, null);
    }

    /** A failure of {@code code} with this message, caused by {@code cause}. */
    public static EngineRuntimeException of(ExceptionCode code, String message, Throwable cause) {
        return new EngineRuntimeException(code, message, null, null, null, cause);
    }

    /** {@code E_OBJECT_MODIFIED}: the save carried a USN other than the stored one; both are named. */
    public static EngineRuntimeException objectModified(String className, UUID id, Long requestedUsn,
                                                        Long databaseUsn) {
        return new EngineRuntimeException(ExceptionCode.E_OBJECT_MODIFIED,
                "The object " + className + " {" + id + "} has been modified since it was retrieved;"
                        + " requested USN = " + requestedUsn + ", database USN = " + databaseUsn,
                id, requestedUsn, databaseUsn, null);
    }

    /** {@code E_OBJECT_NOT_FOUND}: no object of that class (or a subclass) has that id. */
    public static EngineRuntimeException objectNotFound(String className, UUID id) {
        return new EngineRuntimeException(ExceptionCode.E_OBJECT_NOT_FOUND,
                "The object " + className + " {" + id + "} was not found", id, null, null, null);
    }

    /** {@code E_CLASS_NOT_FOUND}: no class of that name is defined. */
    public static EngineRuntimeException classNotFound(String className) {
        return of(ExceptionCode.E_CLASS_NOT_FOUND, "The class " + className + " is not defined");
    }

    /** {@code E_PROPERTY_NOT_DEFINED}: the class has no property of that name. */
    public static EngineRuntimeException propertyNotDefined(String className, String property) {
        return of(ExceptionCode.E_PROPERTY_NOT_DEFINED,
                "The class " + className + " has no property " + property);
    }

    /** {@code E_BAD_VALUE} for a property of an object: class, object, property, value and the rule broken. */
    public static EngineRuntimeException badValue(String className, UUID id, String property, Object value,
                                                  String rule) {
        String where = id == null ? className : className + " {" + id + "}";
        return new EngineRuntimeException(ExceptionCode.E_BAD_VALUE,
                "Bad value for " + where + "." + property + ": " + describe(value) + " (" + rule + ")",
                id, null, null, null);
    }

    /** {@code E_BAD_VALUE} for an argument: its name, the value and the rule broken. */
    public static EngineRuntimeException badArgument(String argument, Object value, String rule) {
        return of(ExceptionCode.E_BAD_VALUE, "Bad value for " + argument + ": " + describe(value) + " (" + rule + ")");
    }

    /** {@code API_PROPERTY_NOT_IN_CACHE}: the property was not fetched into this instance. */
    public static EngineRuntimeException propertyNotInCache(String className, UUID id, String property) {
        return new EngineRuntimeException(ExceptionCode.API_PROPERTY_NOT_IN_CACHE,
                "The property " + property + " of " + className + " {" + id + "} was not fetched;"
                        + " fetch it with a property filter that includes it", id, null, null, null);
    }

    /** {@code E_PREPROCESSOR_FAILED}: a change preprocessor threw, and the save was rolled back. */
    public static EngineRuntimeException preprocessorFailed(String className, UUID id, Throwable cause) {
        return new EngineRuntimeException(ExceptionCode.E_PREPROCESSOR_FAILED,
                "A change preprocessor refused the change of " + className + " {" + id + "}: "
                        + cause.getMessage() + "; nothing was written", id, null, null, cause);
    }

    /** {@code E_OBJECT_LOCKED}: another user holds the cooperative lock; holder, owner text and expiry are named. */
    public static EngineRuntimeException objectLocked(String className, UUID id, String holder, String owner,
                                                      java.time.Instant expiry) {
        return new EngineRuntimeException(ExceptionCode.E_OBJECT_LOCKED,
                "The object " + className + " {" + id + "} is locked by " + holder
                        + (owner == null ? "" : " (owner \"" + owner + "\")") + " until " + expiry, id, null, null, null);
    }

    /**
     * {@code E_OBJECT_NOT_LOCKED}: unlocking an object by an instance that shows a lock ({@code token})
     * the object no longer carries — let go, lapsed or broken, and perhaps taken again since.
     */
    public static EngineRuntimeException notThatLock(String className, UUID id, UUID token) {
        return new EngineRuntimeException(ExceptionCode.E_OBJECT_NOT_LOCKED,
                "The object " + className + " {" + id + "} no longer carries the lock this instance shows (token " + token
                        + "): it was let go, lapsed or was broken; refresh to see the lock it carries now", id, null, null, null);
    }

    /** {@code E_OBJECT_NOT_LOCKED}: unlocking an object nobody holds. */
    public static EngineRuntimeException objectNotLocked(String className, UUID id) {
        return new EngineRuntimeException(ExceptionCode.E_OBJECT_NOT_LOCKED,
                "The object " + className + " {" + id + "} is not locked", id, null, null, null);
    }

    /** {@code E_OBJECT_NOT_LOCKABLE}: only custom objects, documents and folders take locks. */
    public static EngineRuntimeException objectNotLockable(String className, UUID id) {
        return new EngineRuntimeException(ExceptionCode.E_OBJECT_NOT_LOCKABLE,
                "The object " + className + " {" + id + "} cannot be locked: only CustomObject, Document and Folder"
                        + " classes are lockable", id, null, null, null);
    }

    /** {@code E_ACCESS_DENIED}: the user is neither the holder nor a lock breaker. */
    public static EngineRuntimeException unlockDenied(String className, UUID id, String user, String holder) {
        return new EngineRuntimeException(ExceptionCode.E_ACCESS_DENIED,
                user + " may not unlock " + className + " {" + id + "}: it is locked by " + holder
                        + " and " + user + " does not have the lock-breaking role", id, null, null, null);
    }

    /** {@code E_INTERRUPTED}: the thread was interrupted while waiting (its interrupt flag is set again). */
    public static EngineRuntimeException interrupted(String what, InterruptedException cause) {
        Thread.currentThread().interrupt();
        return of(ExceptionCode.E_INTERRUPTED, "Interrupted while " + what, cause);
    }

    /** A tree lock request that waited {@code waited} without being granted; {@code blockers} says by whom. */
    public static EngineRuntimeException lockTimeout(TreeLockRequest request, java.time.Duration waited, String blockers) {
        return of(ExceptionCode.E_LOCK_TIMEOUT, "Tree lock " + request + " not granted within " + waited.toMillis()
                + " ms; blocked by " + blockers);
    }

    /**
     * A lease that is no longer held — {@code what}: "Edit lock", "Tree lock lease" — having expired
     * at {@code expiredAt} (null when that is not known: it was released, taken over or never issued).
     */
    public static EngineRuntimeException leaseLapsed(String what, String leaseId, String owner, java.time.Instant expiredAt) {
        return of(ExceptionCode.E_LEASE_LAPSED, what + " " + leaseId + " of " + owner + " is no longer held; "
                + (expiredAt == null ? "it was released, taken over or never issued" : "it expired at " + expiredAt + " or was released"));
    }

    /**
     * A configuration error naming file, key path, value and rule — but never the value of a key
     * that looks secret ({@code password}, a typo of it, {@code secret}, {@code token} …).
     */
    public static EngineRuntimeException configInvalid(String source, String keyPath, Object value, String rule) {
        return configInvalid(new ConfigProblem(source, null, keyPath,
                (SECRET_KEY.matcher(keyPath).find() && value != null ? "(hidden)" : describe(value)) + ": " + rule));
    }

    private static EngineRuntimeException configInvalid(ConfigProblem problem) {
        return new EngineRuntimeException(ExceptionCode.E_CONFIG_INVALID, problem.message(), null, null, null, null, problem);
    }

    /** For {@code E_CONFIG_INVALID}: the file (or other source) of the setting, else null. */
    public String getConfigSource() {
        return config == null ? null : config.source();
    }

    /** For {@code E_CONFIG_INVALID}: the key path of the setting ({@code database.url}), else null. */
    public String getConfigKeyPath() {
        return config == null ? null : config.keyPath();
    }

    /** For {@code E_CONFIG_INVALID}: the line of the setting in its file, where known, else null. */
    public Integer getConfigLine() {
        return config == null ? null : config.line();
    }

    /**
     * This {@code E_CONFIG_INVALID} placed at {@code line} of its file (the message then reads
     * {@code file:line: key = value: rule}, as a compiler's does); for readers of configuration files.
     */
    public EngineRuntimeException atConfigLine(int line) {
        if (config == null) {
            throw new IllegalStateException("not a configuration error: " + getMessage());
        }
        return configInvalid(new ConfigProblem(config.source(), line, config.keyPath(), config.valueAndRule()));
    }

    private static final java.util.regex.Pattern SECRET_KEY =
            java.util.regex.Pattern.compile("(?i)(pass|pasw|pwd|secret|token|credential|private|api.?key)");

    private static String describe(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof CharSequence s) {
            String text = s.length() > 80 ? s.subSequence(0, 80) + "…(" + s.length() + " chars)" : s.toString();
            return "\"" + text + "\"";
        }
        return value + " [" + value.getClass().getSimpleName() + "]";
    }
}
