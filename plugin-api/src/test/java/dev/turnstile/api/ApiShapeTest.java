package dev.turnstile.api;

import com.sun.source.doctree.DocCommentTree;
import com.sun.source.doctree.DocTree;
import com.sun.source.doctree.ParamTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.DocTrees;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePathScanner;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.lang.model.element.Modifier;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract's shape, read from its sources and its compiled module descriptor: a package per
 * capability, only those exported, and Javadoc on every public member.
 */
class ApiShapeTest {
    private static final Path SOURCES = Path.of("src/main/java");
    private static final Set<String> CAPABILITIES = Set.of("changes", "dispenser", "editlock", "retry", "treelock");

    private static final List<CompilationUnitTree> units = new ArrayList<>();
    private static DocTrees docTrees;

    @BeforeAll
    static void parseSources() throws IOException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager files = compiler.getStandardFileManager(null, null, null);
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(SOURCES)) {
            paths = walk.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
        JavacTask task = (JavacTask) compiler.getTask(null, files, null, null, null, files.getJavaFileObjectsFromPaths(paths));
        task.parse().forEach(units::add);
        docTrees = DocTrees.instance(task);
    }

    @Test
    void theModuleExportsTheCoreEachCapabilityAndTheSpi_andNothingElse() throws IOException {
        ModuleDescriptor module;
        try (InputStream in = Files.newInputStream(Path.of("target/classes/module-info.class"))) {
            module = ModuleDescriptor.read(in);
        }
        Set<String> exported = module.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toCollection(TreeSet::new));
        Set<String> expected = new TreeSet<>(Set.of("dev.turnstile.api", "dev.turnstile.spi"));
        CAPABILITIES.forEach(c -> expected.add("dev.turnstile.api." + c));
        assertThat(exported).isEqualTo(expected);
        assertThat(SOURCES.resolve("dev/turnstile/internal")).as("the configuration types' shared helpers").isDirectory();
    }

    @Test
    void eachCapabilitysTypesLiveInItsPackage_notInTheCore() {
        TreeMap<String, String> misplaced = new TreeMap<>();
        for (CompilationUnitTree unit : units) {
            String pkg = unit.getPackageName() == null ? "" : unit.getPackageName().toString();
            for (Tree t : unit.getTypeDecls()) {
                String name = ((ClassTree) t).getSimpleName().toString();
                String home = capabilityOf(name);
                if (home != null && !pkg.equals("dev.turnstile.api." + home)) {
                    misplaced.put(pkg + "." + name, "dev.turnstile.api." + home);
                }
            }
        }
        assertThat(misplaced).as("types outside their capability's package").isEmpty();
    }

    /** The capability a type's name claims, by its prefix; null for core names. */
    private static String capabilityOf(String type) {
        if (type.startsWith("Dispenser") || type.startsWith("Number") || type.equals("IssuedNumber")) {
            return "dispenser";
        }
        if (type.startsWith("Edit")) {
            return "editlock";
        }
        if (type.startsWith("TreeLock") || type.equals("TreePath")) {
            return "treelock";
        }
        if (type.startsWith("Retry")) {
            return "retry";
        }
        if (type.startsWith("ChangeFeed") || type.startsWith("ChangeDispatcher") || type.startsWith("Dispatch")) {
            return "changes";
        }
        return null;
    }

    @Test
    void everyPublicMemberHasJavadoc_andEveryRecordComponentAParam() {
        List<String> missing = new ArrayList<>();
        for (CompilationUnitTree unit : units) {
            new TreePathScanner<Void, Void>() {
                private final List<ClassTree> enclosing = new ArrayList<>();

                @Override
                public Void visitClass(ClassTree type, Void unused) {
                    boolean inInterface = !enclosing.isEmpty() && isInterface(enclosing.get(enclosing.size() - 1));
                    if (!isVisible(type.getModifiers().getFlags())
                            && !(inInterface && !type.getModifiers().getFlags().contains(Modifier.PRIVATE))) {
                        return null;
                    }
                    DocCommentTree doc = docTrees.getDocCommentTree(getCurrentPath());
                    String name = qualified(type.getSimpleName().toString());
                    if (doc == null) {
                        missing.add(name);
                    } else if (type.getKind() == Tree.Kind.RECORD) {
                        Set<String> documented = new TreeSet<>();
                        for (DocTree tag : doc.getBlockTags()) {
                            if (tag instanceof ParamTree p) {
                                documented.add(p.getName().getName().toString());
                            }
                        }
                        for (Tree member : type.getMembers()) {
                            if (member instanceof VariableTree v && !v.getModifiers().getFlags().contains(Modifier.STATIC)
                                    && !documented.contains(v.getName().toString())) {
                                missing.add(name + " @param " + v.getName());
                            }
                        }
                    }
                    enclosing.add(type);
                    try {
                        return super.visitClass(type, unused);
                    } finally {
                        enclosing.remove(enclosing.size() - 1);
                    }
                }

                @Override
                public Void visitMethod(MethodTree method, Void unused) {
                    ClassTree owner = enclosing.get(enclosing.size() - 1);
                    boolean visible = isInterface(owner) ? !method.getModifiers().getFlags().contains(Modifier.PRIVATE)
                            : isVisible(method.getModifiers().getFlags());
                    boolean overrides = method.getModifiers().getAnnotations().stream()
                            .anyMatch(a -> a.getAnnotationType().toString().equals("Override"));
                    boolean compactConstructor = owner.getKind() == Tree.Kind.RECORD && method.getReturnType() == null
                            && isCompact(method);
                    if (visible && !overrides && !compactConstructor && docTrees.getDocCommentTree(getCurrentPath()) == null) {
                        missing.add(qualified(method.getReturnType() == null ? "<init>" : method.getName().toString())
                                + "(" + method.getParameters().stream().map(p -> p.getType().toString()).collect(Collectors.joining(", ")) + ")");
                    }
                    return null;
                }

                @Override
                public Void visitVariable(VariableTree field, Void unused) {
                    ClassTree owner = enclosing.get(enclosing.size() - 1);
                    boolean visible = isInterface(owner) || isVisible(field.getModifiers().getFlags());
                    boolean recordComponent = owner.getKind() == Tree.Kind.RECORD
                            && !field.getModifiers().getFlags().contains(Modifier.STATIC);
                    if (visible && !recordComponent && docTrees.getDocCommentTree(getCurrentPath()) == null) {
                        missing.add(qualified(field.getName().toString()));
                    }
                    return null;
                }

                private boolean isCompact(MethodTree constructor) {
                    // A compact canonical constructor has no parameter list in the source.
                    long start = docTrees.getSourcePositions().getStartPosition(unit, constructor);
                    long body = docTrees.getSourcePositions().getStartPosition(unit, constructor.getBody());
                    try {
                        return !unit.getSourceFile().getCharContent(true).subSequence((int) start, (int) body).toString().contains("(");
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                }

                private String qualified(String member) {
                    String types = enclosing.stream().map(c -> c.getSimpleName().toString()).collect(Collectors.joining("."));
                    return unit.getPackageName() + "." + (types.isEmpty() ? member : types + (member.isEmpty() ? "" : "." + member));
                }
            }.scan(unit, null);
        }
        assertThat(missing).as("public members without Javadoc (%d)", missing.size()).isEmpty();
    }

    private static boolean isInterface(ClassTree type) {
        return type.getKind() == Tree.Kind.INTERFACE || type.getKind() == Tree.Kind.ANNOTATION_TYPE;
    }

    private static boolean isVisible(Set<Modifier> modifiers) {
        return modifiers.contains(Modifier.PUBLIC) || modifiers.contains(Modifier.PROTECTED);
    }
}
