package dev.turnstile.engine.objects;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.engine.db.GuardedWrite;
import org.hibernate.LockMode;
import org.hibernate.StatelessSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * An object row read, checked and decoded into its state, and a state's values validated and
 * encoded for the row: what every write of an object row builds on.
 */
final class ObjectRows {
    private static final Logger log = LoggerFactory.getLogger(ObjectRows.class);

    private final ClassRegistry classes;

    ObjectRows(ClassRegistry classes) {
        this.classes = classes;
    }

    /** {@code write} setting who wrote the row and when, and the lock it carries after. */
    static GuardedWrite stamped(GuardedWrite write, String user, Instant now, LockState lock) {
        return write.set("last_modifier", user)
                .set("date_last_modified", now)
                .set("lock_holder", lock.holder(), String.class)
                .set("lock_owner", lock.owner(), String.class)
                .set("lock_token", lock.token(), UUID.class)
                .set("lock_timeout", lock.timeoutSeconds(), Integer.class);
    }

    /**
     * The state the save builds on: the instance's own when it knows the stored values for the USN
     * it holds (no statement), else the row read FOR UPDATE and checked against the instance's USN.
     */
    ObjectState knownOrLockedRead(StatelessSession session, DefaultIndependentObject o) {
        Map<String, Object> known = o.knownStoredValues();
        if (known != null) {
            return new ObjectState(o.getId(), o.getClassName(), o.getUpdateSequenceNumber(), o.getCreator(),
                    o.getDateCreated(), o.getLastModifier(), o.getDateLastModified(), known, o.lockState());
        }
        return checkedRead(session, o, LockMode.PESSIMISTIC_WRITE);
    }

    /** The values, validated and encoded; refuses a set too large for the values column. */
    String encode(DefaultClassDefinition definition, UUID id, Map<String, Object> valid) {
        String json = PropertyCodec.encodeValues(valid);
        if (json.length() > ObjectRecord.MAX_VALUES_LENGTH) {
            throw EngineRuntimeException.badValue(definition.getName(), id, "(all properties)",
                    json.length() + " characters", "more than " + ObjectRecord.MAX_VALUES_LENGTH + " characters in all");
        }
        return json;
    }

    Map<String, Object> validate(StatelessSession session, DefaultClassDefinition definition, UUID id,
                                         Map<String, Object> values) {
        try {
            return PropertyValues.validate(definition, id, values);
        } catch (EngineRuntimeException e) {
            if (e.getExceptionCode() != ExceptionCode.E_PROPERTY_NOT_DEFINED) {
                throw e;
            }
            // Perhaps another engine defined the property after we cached the class: look once more.
            classes.reload();
            return PropertyValues.validate(classes.get(session, definition.getName()), id, values);
        }
    }

    /** Reads the row ({@code mode}: FOR UPDATE, or a plain look) and applies the instance's USN check to it. */
    ObjectState checkedRead(StatelessSession session, DefaultIndependentObject o, LockMode mode) {
        ObjectRecord record = record(session, o.getClassName(), o.getId(), mode);
        Long usn = o.getUpdateSequenceNumber();
        if (usn != null && usn != record.usn) {
            throw EngineRuntimeException.objectModified(o.getClassName(), o.getId(), usn, record.usn);
        }
        return toState(session, record);
    }

    /** The row read with {@code mode}, if it is an object of {@code className} or a subclass. */
    ObjectRecord record(StatelessSession session, String className, UUID id, LockMode mode) {
        ObjectRecord record = session.get(ObjectRecord.class, id, mode);
        if (record == null || !classes.get(session, record.className).isSubclassOf(className)) {
            throw EngineRuntimeException.objectNotFound(className, id);
        }
        return record;
    }

    /** Why a guarded statement touched no row: the object is gone, or its USN moved on. */
    static EngineRuntimeException lostRace(StatelessSession session, String className, UUID id, long usn) {
        Long stored = session.createSelectionQuery("select o.usn from ObjectRecord o where o.id = :id", Long.class)
                .setParameter("id", id)
                .uniqueResult();
        return stored == null
                ? EngineRuntimeException.objectNotFound(className, id)
                : EngineRuntimeException.objectModified(className, id, usn, stored);
    }

    ObjectState toState(StatelessSession session, ObjectRecord record) {
        List<String> unknown = new ArrayList<>();
        Map<String, Object> values = PropertyCodec.decodeValues(record.propValues,
                classes.get(session, record.className), unknown);
        if (!unknown.isEmpty()) {
            // Another engine added properties to the class since we cached it.
            classes.reload();
            unknown.clear();
            values = PropertyCodec.decodeValues(record.propValues, classes.get(session, record.className), unknown);
            if (!unknown.isEmpty()) {
                log.warn("{} {{}} holds values of undefined properties {}; ignored", record.className, record.id, unknown);
            }
        }
        LockState lock = record.lockHolder == null ? LockState.NONE
                : new LockState(record.lockHolder, record.lockOwner, record.lockToken, record.lockTimeout);
        return new ObjectState(record.id, record.className, record.usn, record.creator, record.dateCreated,
                record.lastModifier, record.dateLastModified, values, lock);
    }
}
