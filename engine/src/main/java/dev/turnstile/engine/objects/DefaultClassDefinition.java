package dev.turnstile.engine.objects;

import dev.turnstile.api.ClassDefinition;
import dev.turnstile.api.PropertyDefinition;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** An immutable class definition with its inherited properties resolved. */
final class DefaultClassDefinition implements ClassDefinition {
    private final String name;
    private final DefaultClassDefinition superclass;
    private final List<PropertyDefinition> ownProperties;
    private final Map<String, PropertyDefinition> allProperties;
    private final boolean ownLockEnforcement;

    DefaultClassDefinition(String name, DefaultClassDefinition superclass, List<PropertyDefinition> ownProperties,
                           boolean enforceLocks) {
        this.name = name;
        this.superclass = superclass;
        this.ownLockEnforcement = enforceLocks;
        this.ownProperties = List.copyOf(ownProperties);
        Map<String, PropertyDefinition> all = new LinkedHashMap<>();
        if (superclass != null) {
            all.putAll(superclass.allProperties);
        }
        for (PropertyDefinition p : ownProperties) {
            all.put(p.name(), p);
        }
        this.allProperties = Collections.unmodifiableMap(all);
    }

    @Override
    public String getName() {
        return name;
    }

    DefaultClassDefinition superclass() {
        return superclass;
    }

    @Override
    public String getSuperclassName() {
        return superclass == null ? null : superclass.name;
    }

    @Override
    public String getBaseClassName() {
        return superclass == null ? name : superclass.getBaseClassName();
    }

    @Override
    public boolean isSubclassOf(String className) {
        for (DefaultClassDefinition c = this; c != null; c = c.superclass) {
            if (c.name.equals(className)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean isLockable() {
        return !getBaseClassName().equals(LINK);
    }

    @Override
    public boolean isLockEnforced() {
        return ownLockEnforcement || (superclass != null && superclass.isLockEnforced());
    }

    /** Whether this class itself (not a superclass) turned enforcement on. */
    boolean ownLockEnforcement() {
        return ownLockEnforcement;
    }

    /** This class and its ancestors, root first. */
    List<String> lineage() {
        List<String> names = new ArrayList<>();
        for (DefaultClassDefinition c = this; c != null; c = c.superclass) {
            names.add(0, c.name);
        }
        return names;
    }

    List<PropertyDefinition> ownProperties() {
        return ownProperties;
    }

    @Override
    public List<PropertyDefinition> getPropertyDefinitions() {
        return List.copyOf(allProperties.values());
    }

    @Override
    public Optional<PropertyDefinition> getPropertyDefinition(String propertyName) {
        return Optional.ofNullable(allProperties.get(propertyName));
    }

    @Override
    public Map<String, PropertyDefinition> getPropertyDefinitionsByName() {
        return allProperties;
    }

    @Override
    public String toString() {
        return "ClassDefinition[" + name + " extends " + getSuperclassName() + ", " + allProperties.values()
                + (isLockEnforced() ? ", enforced locks" : "") + "]";
    }
}
