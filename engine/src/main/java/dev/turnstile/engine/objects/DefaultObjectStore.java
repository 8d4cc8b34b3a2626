package dev.turnstile.engine.objects;

import dev.turnstile.api.ChangePreprocessor;
import dev.turnstile.api.ClassDefinition;
import dev.turnstile.api.ClassDefinitionBuilder;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.Document;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.Folder;
import dev.turnstile.api.IndependentObject;
import dev.turnstile.api.LockPage;
import dev.turnstile.api.LockQuery;
import dev.turnstile.api.ObjectLockInfo;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyDefinition;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.UpdatingBatch;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;

/** One session's object store: the engine's shared services, acting as the session's user. */
final class DefaultObjectStore implements ObjectStore {
    private final ObjectStoreServices services;
    private final LockRules.Actor actor;
    private final Set<String> roles;

    DefaultObjectStore(ObjectStoreServices services, LockRules.Actor actor, Set<String> roles) {
        this.services = services;
        this.actor = actor;
        this.roles = Set.copyOf(roles);
    }

    ObjectStoreServices services() {
        return services;
    }

    String user() {
        return actor.user();
    }

    Set<String> roles() {
        return roles;
    }

    @Override
    public ClassDefinition defineClass(String className, Consumer<ClassDefinitionBuilder> properties) {
        return services.classes.define(className, properties, actor);
    }

    @Override
    public ClassDefinition getClassDefinition(String className) {
        return services.classes.get(className);
    }

    @Override
    public IndependentObject createObject(String className) {
        return createObject(className, UUID.randomUUID());
    }

    @Override
    public CustomObject createCustomObject(String className, UUID id) {
        requireBase(className, ClassDefinition.CUSTOM_OBJECT);
        return (CustomObject) createObject(className, id);
    }

    @Override
    public IndependentObject createObject(String className, UUID id) {
        Objects.requireNonNull(id, "id");
        DefaultClassDefinition definition = services.classes.get(className);
        DefaultIndependentObject o = instantiate(definition, className, id);
        Map<String, Object> defaults = new LinkedHashMap<>();
        for (PropertyDefinition p : definition.getPropertyDefinitions()) {
            if (p.defaultValue() != null) {
                defaults.put(p.name(), p.defaultValue());
            }
        }
        o.initNew(defaults);
        return o;
    }

    @Override
    public CustomObject createCustomObject(String className) {
        requireBase(className, ClassDefinition.CUSTOM_OBJECT);
        return (CustomObject) createObject(className);
    }

    @Override
    public Document createDocument(String className) {
        requireBase(className, ClassDefinition.DOCUMENT);
        return (Document) createObject(className);
    }

    @Override
    public Folder createFolder(String className) {
        requireBase(className, ClassDefinition.FOLDER);
        return (Folder) createObject(className);
    }

    @Override
    public IndependentObject getObject(String className, UUID id) {
        Objects.requireNonNull(id, "id");
        return instantiate(services.classes.get(className), className, id);
    }

    @Override
    public CustomObject getCustomObject(String className, UUID id) {
        requireBase(className, ClassDefinition.CUSTOM_OBJECT);
        return (CustomObject) getObject(className, id);
    }

    @Override
    public Document getDocument(String className, UUID id) {
        requireBase(className, ClassDefinition.DOCUMENT);
        return (Document) getObject(className, id);
    }

    @Override
    public Folder getFolder(String className, UUID id) {
        requireBase(className, ClassDefinition.FOLDER);
        return (Folder) getObject(className, id);
    }

    @Override
    public IndependentObject fetchObject(String className, UUID id, PropertyFilter filter) {
        Objects.requireNonNull(id, "id");
        services.classes.get(className);
        ObjectState state = read(className, id);
        DefaultIndependentObject o = instantiate(services.classes.get(state.className()), state.className(), id);
        o.loaded(state, PropertyFilter.orAll(filter), false);
        return o;
    }

    @Override
    public CustomObject fetchCustomObject(String className, UUID id, PropertyFilter filter) {
        requireBase(className, ClassDefinition.CUSTOM_OBJECT);
        return (CustomObject) fetchObject(className, id, filter);
    }

    @Override
    public Document fetchDocument(String className, UUID id, PropertyFilter filter) {
        requireBase(className, ClassDefinition.DOCUMENT);
        return (Document) fetchObject(className, id, filter);
    }

    @Override
    public Folder fetchFolder(String className, UUID id, PropertyFilter filter) {
        requireBase(className, ClassDefinition.FOLDER);
        return (Folder) fetchObject(className, id, filter);
    }

    @Override
    public UpdatingBatch createUpdatingBatch(RefreshMode refreshMode) {
        return new DefaultUpdatingBatch(this, Objects.requireNonNull(refreshMode, "refreshMode"));
    }

    @Override
    public void addChangePreprocessor(String className, ChangePreprocessor preprocessor) {
        services.systemClasses.checkChange(services.classes.get(className), null, actor, "add a preprocessor to");
        services.preprocessors.add(className, preprocessor);
    }

    @Override
    public void removeChangePreprocessor(String className, ChangePreprocessor preprocessor) {
        services.preprocessors.remove(className, preprocessor);
    }

    @Override
    public LockPage<ObjectLockInfo> lockedObjects(LockQuery query) {
        return services.persistence.objectLocks.lockedObjects(query, services.systemClasses.unreadable(actor, roles));
    }

    ObjectState read(String className, UUID id) {
        ObjectState state = services.persistence.read(className, id);
        services.systemClasses.checkRead(services.classes.get(state.className()), id, actor, roles);
        return state;
    }

    void saveAll(List<DefaultIndependentObject> objects, RefreshMode mode) {
        services.persistence.save(objects, actor, Objects.requireNonNull(mode, "refreshMode"));
    }

    DefaultClassDefinition classDefinition(String className) {
        return services.classes.get(className);
    }

    Instant now() {
        return services.database.now();
    }

    private void requireBase(String className, String base) {
        ClassDefinition definition = services.classes.get(className);
        if (!definition.getBaseClassName().equals(base)) {
            throw EngineRuntimeException.badArgument("class " + className, className,
                    "is a " + definition.getBaseClassName() + " class, not a " + base + " class");
        }
    }

    private DefaultIndependentObject instantiate(DefaultClassDefinition definition, String className, UUID id) {
        return switch (definition.getBaseClassName()) {
            case ClassDefinition.DOCUMENT -> new DefaultDocument(this, className, id);
            case ClassDefinition.FOLDER -> new DefaultFolder(this, className, id);
            default -> new DefaultCustomObject(this, className, id);
        };
    }
}
