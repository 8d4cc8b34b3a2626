package dev.turnstile.engine.objects;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.IndependentObject;
import dev.turnstile.api.Properties;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;

import java.time.Instant;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The client-side state of one object: what was last read or saved ({@code stored}, with the USN it
 * had), which properties the caller may see ({@code visible}), and the pending changes. Not
 * thread-safe, like FileNet's objects.
 */
class DefaultIndependentObject implements IndependentObject {
    private final DefaultObjectStore store;
    private final UUID id;
    private String className;
    private Long usn;
    private String creator;
    private Instant dateCreated;
    private String lastModifier;
    private Instant dateLastModified;
    /** Every stored custom value as of {@code storedUsn}; null when not known (fetchless, NO_REFRESH). */
    private Map<String, Object> stored;
    private long storedUsn;
    /** Properties the caller fetched; null means all. */
    private Set<String> visible;
    private final Map<String, Object> pending = new LinkedHashMap<>();
    private LockState lock = LockState.NONE;
    private LockRules.Pending pendingLock = LockRules.Pending.NONE;
    private boolean isNew;
    private boolean pendingDelete;
    private boolean deleted;
    private final Properties properties = new View();

    DefaultIndependentObject(DefaultObjectStore store, String className, UUID id) {
        this.store = store;
        this.className = className;
        this.id = id;
        this.visible = new HashSet<>();
    }

    /** A new, unsaved object whose pending values start as the class defaults. */
    void initNew(Map<String, Object> defaults) {
        isNew = true;
        visible = null;
        stored = new HashMap<>();
        pending.putAll(defaults);
    }

    /** Takes the state read from the database. */
    void loaded(ObjectState state, PropertyFilter filter, boolean keepPending) {
        className = state.className();
        usn = state.usn();
        storedUsn = state.usn();
        creator = state.creator();
        dateCreated = state.dateCreated();
        lastModifier = state.lastModifier();
        dateLastModified = state.dateLastModified();
        lock = state.lock();
        stored = new HashMap<>(state.values());
        if (!keepPending) {
            clearPendingActions();
            visible = filter.isAll() ? null : new HashSet<>(filter.names());
        } else if (visible != null) {
            if (filter.isAll()) {
                visible = null;
            } else {
                visible.addAll(filter.names());
            }
        }
    }

    /** Applies a committed save to this instance. */
    void saved(ObjectState state, RefreshMode mode) {
        pending.clear();
        pendingLock = LockRules.Pending.NONE;
        if (pendingDelete) {
            pendingDelete = false;
            deleted = true;
            return;
        }
        boolean created = isNew;
        isNew = false;
        if (mode == RefreshMode.REFRESH) {
            loaded(state, PropertyFilter.ALL, false);
        } else if (created) {
            // The instance knows the USN it created with, so its next save stays conditional.
            usn = state.usn();
            storedUsn = state.usn();
            stored = null;
        }
    }

    // --- read by the writer ---

    DefaultObjectStore store() {
        return store;
    }

    Map<String, Object> pendingValues() {
        return pending;
    }

    /** The stored values, when they are known to belong to the USN this instance holds. */
    Map<String, Object> knownStoredValues() {
        return stored != null && usn != null && usn == storedUsn ? Collections.unmodifiableMap(stored) : null;
    }

    boolean isPendingDelete() {
        return pendingDelete;
    }

    LockRules.Pending pendingLock() {
        return pendingLock;
    }

    /** The lock as last read or saved. */
    LockState lockState() {
        return lock;
    }

    // --- IndependentObject ---

    @Override
    public UUID getId() {
        return id;
    }

    @Override
    public String getClassName() {
        return className;
    }

    @Override
    public Properties getProperties() {
        return properties;
    }

    @Override
    public Long getUpdateSequenceNumber() {
        return usn;
    }

    @Override
    public void setUpdateSequenceNumber(Long usn) {
        this.usn = usn;
    }

    @Override
    public String getCreator() {
        return creator;
    }

    @Override
    public Instant getDateCreated() {
        return dateCreated;
    }

    @Override
    public String getLastModifier() {
        return lastModifier;
    }

    @Override
    public Instant getDateLastModified() {
        return dateLastModified;
    }

    @Override
    public void fetchProperties(PropertyFilter given) {
        PropertyFilter filter = PropertyFilter.orAll(given);
        checkSaved("fetchProperties");
        ObjectState state = store.read(className, id);
        if (usn != null && usn != state.usn()) {
            throw EngineRuntimeException.objectModified(className, id, usn, state.usn());
        }
        // FileNet: a fetch replaces the cached values of what it fetches, pending changes included;
        // keeping them would save a value computed from the state that just lost a race.
        if (filter.isAll()) {
            pending.clear();
        } else {
            pending.keySet().removeAll(filter.names());
        }
        loaded(state, filter, true);
    }

    @Override
    public void refresh(PropertyFilter filter) {
        checkSaved("refresh");
        loaded(store.read(className, id), PropertyFilter.orAll(filter), false);
    }

    @Override
    public void delete() {
        if (isNew) {
            throw EngineRuntimeException.badArgument("delete of " + className + " {" + id + "}", "new object",
                    "the object has not been saved yet");
        }
        pendingDelete = true;
    }

    @Override
    public void save(RefreshMode refreshMode) {
        store.saveAll(List.of(this), refreshMode);
    }

    @Override
    public boolean isPendingSave() {
        return isNew || pendingDelete || !pending.isEmpty() || pendingLock != LockRules.Pending.NONE;
    }

    @Override
    public void clearPendingActions() {
        pending.clear();
        pendingDelete = false;
        pendingLock = LockRules.Pending.NONE;
    }

    @Override
    public void lock(int timeoutSeconds, String owner) {
        pendingLock = checkedLock(timeoutSeconds, owner, false);
    }

    @Override
    public void lockExclusively(int timeoutSeconds, String owner) {
        pendingLock = checkedLock(timeoutSeconds, owner, true);
    }

    private LockRules.Pending checkedLock(int timeoutSeconds, String owner, boolean exclusive) {
        requireLockable();
        if (timeoutSeconds < 1) {
            throw EngineRuntimeException.badArgument("lock timeout of " + className + " {" + id + "}", timeoutSeconds,
                    "must be at least 1 second");
        }
        if (owner != null && owner.length() > MAX_LOCK_OWNER_LENGTH) {
            throw EngineRuntimeException.badArgument("lock owner of " + className + " {" + id + "}", owner,
                    "at most " + MAX_LOCK_OWNER_LENGTH + " characters");
        }
        // A lock still pending (its save failed, perhaps after it committed) is the same request asked
        // again: its retry presents the same identity and so knows the lock it took (Pending#request).
        UUID request = pendingLock.locking() ? pendingLock.request() : UUID.randomUUID();
        return LockRules.Pending.lock(timeoutSeconds, owner, exclusive, request);
    }

    @Override
    public void unlock() {
        requireLockable();
        pendingLock = LockRules.Pending.unlock(lock.token()); // that lock, not one taken since
    }

    /** Only CustomObject, Document and Folder classes take locks: {@code E_OBJECT_NOT_LOCKABLE} at once otherwise. */
    private void requireLockable() {
        if (!store.classDefinition(className).isLockable()) {
            throw EngineRuntimeException.objectNotLockable(className, id);
        }
    }

    @Override
    public void breakLock(String reason) {
        requireLockable();
        store.services().breaks.check(store.user(), store.roles(), "the cooperative lock of " + className + " {" + id + "}", reason);
        pendingLock = LockRules.Pending.breakLock(lock.token(), reason);
    }

    @Override
    public boolean isLocked() {
        return lock.isHeldAt(store.now(), dateLastModified);
    }

    @Override
    public String getLockHolder() {
        return lock.holder();
    }

    @Override
    public String getLockOwner() {
        return lock.owner();
    }

    @Override
    public UUID getLockToken() {
        return lock.token();
    }

    @Override
    public Integer getLockTimeout() {
        return lock.timeoutSeconds();
    }

    @Override
    public Instant getLockExpiry() {
        return lock.expiry(dateLastModified);
    }

    @Override
    public boolean isNew() {
        return isNew;
    }

    @Override
    public boolean isDeleted() {
        return deleted;
    }

    private void checkSaved(String operation) {
        if (isNew) {
            throw EngineRuntimeException.badArgument(operation + " of " + className + " {" + id + "}", "new object",
                    "the object has not been saved yet");
        }
    }

    @Override
    public String toString() {
        return className + " {" + id + "} USN " + usn + (pending.isEmpty() ? "" : " pending " + pending.keySet())
                + (pendingLock.locking() ? " lock" : pendingLock.breaking() ? " break" : pendingLock.unlocking() ? " unlock" : "");
    }

    private final class View extends AbstractProperties {
        @Override
        protected String className() {
            return className;
        }

        @Override
        protected UUID objectId() {
            return id;
        }

        @Override
        public void putValue(String name, Object value) {
            if (ClassRegistry.SYSTEM_PROPERTIES.contains(name)) {
                throw EngineRuntimeException.badValue(className, id, name, value, "a read-only system property");
            }
            pending.put(name, value);
        }

        @Override
        public Object getObjectValue(String name) {
            switch (name) {
                case "Id": return id;
                case "ClassName": return className;
                case "Creator": return creator;
                case "DateCreated": return dateCreated;
                case "LastModifier": return lastModifier;
                case "DateLastModified": return dateLastModified;
                case "UpdateSequenceNumber": return usn;
                default: break;
            }
            if (pending.containsKey(name)) {
                return pending.get(name);
            }
            if (stored == null || (visible != null && !visible.contains(name))) {
                throw EngineRuntimeException.propertyNotInCache(className, id, name);
            }
            return stored.get(name);
        }

        @Override
        public boolean isPropertyPresent(String name) {
            return pending.containsKey(name)
                    || (stored != null && (visible == null || visible.contains(name)) && stored.containsKey(name));
        }

        @Override
        public Set<String> names() {
            Set<String> names = new LinkedHashSet<>();
            if (stored != null) {
                stored.keySet().stream().filter(n -> visible == null || visible.contains(n)).forEach(names::add);
            }
            names.addAll(pending.keySet());
            return names;
        }

        @Override
        public Map<String, Object> toMap() {
            Map<String, Object> map = new LinkedHashMap<>();
            for (String name : names()) {
                map.put(name, getObjectValue(name));
            }
            return map;
        }
    }
}
