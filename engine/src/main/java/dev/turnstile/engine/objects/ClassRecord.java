package dev.turnstile.engine.objects;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A user-defined class: its superclass and its own property definitions as JSON. */
@Entity
@Table(name = "ts_class")
public class ClassRecord {
    @Id
    @Column(name = "class_name", nullable = false, length = 64)
    String name;

    @Column(name = "superclass_name", nullable = false, length = 64)
    String superclassName;

    @Column(name = "revision", nullable = false)
    int revision;

    @Column(name = "property_defs", nullable = false, length = ObjectRecord.MAX_VALUES_LENGTH)
    String propertyDefinitions;

    /** Null (for rows written before the column existed) means false. */
    @Column(name = "enforce_locks")
    Boolean enforceLocks;

    protected ClassRecord() {
    }

    ClassRecord(String name, String superclassName, String propertyDefinitions, boolean enforceLocks) {
        this.name = name;
        this.superclassName = superclassName;
        this.propertyDefinitions = propertyDefinitions;
        this.enforceLocks = enforceLocks;
    }
}
