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

import javax.lang.model.element.Modifier;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
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

    private static boolean isInterface(ClassTree type) {
        return type.getKind() == Tree.Kind.INTERFACE || type.getKind() == Tree.Kind.ANNOTATION_TYPE;
    }

    private static boolean isVisible(Set<Modifier> modifiers) {
        return modifiers.contains(Modifier.PUBLIC) || modifiers.contains(Modifier.PROTECTED);
    }
}
