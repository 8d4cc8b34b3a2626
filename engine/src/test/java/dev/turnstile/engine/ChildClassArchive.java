package dev.turnstile.engine;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The child JVMs' classes, loaded once for the whole build: a class-data-sharing archive
 * ({@code -XX:SharedArchiveFile}) of what a child loads to open an engine, made by one JVM that
 * does so ({@link ChildClassWarmUp}) and mapped by every child after it. A child then starts in
 * about half the CPU (2.5 s to 1.3 s for an engine opened on PostgreSQL, measured), and the suites
 * start some 150 of them on two cores. The archive takes jars only, so the class path's
 * directories ({@code target/classes}, {@code target/test-classes}) go into jars of their own first.
 * Made once per content of the class path (a hash of every file's name, size and time), under a
 * file lock so that test JVMs side by side make it once; if it cannot be made, children start
 * without it, as before.
 */
final class ChildClassArchive {
    private static final Path ROOT = Path.of("target", "child-cds").toAbsolutePath();
    private static final String FULL_CLASS_PATH = System.getProperty("java.class.path");
    private static final Path THIS_JAVA = Path.of(System.getProperty("java.home"));
    /** This test JVM's archive once made (or found unmakeable); guarded by the class. */
    private static Launch made;

    private ChildClassArchive() {
    }

    /** A child's class path and the JVM options that map the archive (none if there is none). */
    record Launch(String classPath, List<String> options) {
    }

    /**
     * How a child of {@code javaHome} on {@code classPath} starts: with the archive on this runtime and
     * the full test class path, else as it is (the archive fits no other).
     */
    static synchronized Launch forChild(Path javaHome, String classPath, List<String> jvmOptions) {
        if (!javaHome.equals(THIS_JAVA) || !classPath.equals(FULL_CLASS_PATH)) {
            return new Launch(classPath, List.of());
        }
        if (made == null) {
            made = make(jvmOptions);
        }
        return made;
    }

    private static Launch make(List<String> jvmOptions) {
        try {
            List<Path> entries = Stream.of(FULL_CLASS_PATH.split(File.pathSeparator)).map(Path::of).filter(Files::exists).toList();
            Path dir = ROOT.resolve(hash(entries));
            Files.createDirectories(dir);
            Path archive = dir.resolve("classes.jsa");
            List<String> jars = new ArrayList<>();
            try (FileChannel lockFile = FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock ignored = lockFile.lock()) {
                for (int i = 0; i < entries.size(); i++) {
                    Path entry = entries.get(i);
                    jars.add(Files.isDirectory(entry) ? jarOf(entry, dir.resolve(i + "-" + entry.getFileName() + ".jar")).toString()
                            : entry.toString());
                }
                String classPath = String.join(File.pathSeparator, jars);
                if (!Files.exists(archive) && !dump(jvmOptions, classPath, dir, archive)) {
                    return new Launch(FULL_CLASS_PATH, List.of());
                }
                // The JVM's notes (an archive that no longer fits, say) go to stderr: stdout is the worker's lines.
                return new Launch(classPath, List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:disable", "-Xlog:all=warning:stderr"));
            }
        } catch (IOException e) {
            System.err.println("child JVMs start without a class archive: " + e);
            return new Launch(FULL_CLASS_PATH, List.of());
        }
    }

    /** Runs {@link ChildClassWarmUp} with the archive written at its exit; whether it was. */
    private static boolean dump(List<String> jvmOptions, String classPath, Path dir, Path archive) throws IOException {
        Path partial = dir.resolve("classes.jsa.part");
        List<String> command = new ArrayList<>();
        command.add(THIS_JAVA.resolve("bin").resolve("java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-XX:ArchiveClassesAtExit=" + partial, "-cp", classPath, ChildClassWarmUp.class.getName(),
                dir.resolve("warm-up").toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("dump.log").toFile()).start();
        try {
            if (!p.waitFor(3, TimeUnit.MINUTES) || p.exitValue() != 0 || !Files.exists(partial)) {
                p.destroyForcibly();
                System.err.println("child JVMs start without a class archive: its dump failed, see " + dir.resolve("dump.log"));
                return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            return false;
        }
        Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
        return true;
    }

    /** {@code directory}'s files in a jar at {@code jar} (made once: the name is in the hashed directory). */
    private static Path jarOf(Path directory, Path jar) throws IOException {
        if (Files.exists(jar)) {
            return jar;
        }
        Path partial = Path.of(jar + ".part");
        try (OutputStream out = Files.newOutputStream(partial); JarOutputStream zip = new JarOutputStream(out);
             Stream<Path> files = Files.walk(directory)) {
            // Directories too: a class loader finds a resource directory (Flyway's migrations) by its entry.
            for (Path f : files.filter(f -> !f.equals(directory)).sorted().toList()) {
                String name = directory.relativize(f).toString().replace(File.separatorChar, '/');
                boolean isDirectory = Files.isDirectory(f);
                zip.putNextEntry(new JarEntry(isDirectory ? name + "/" : name));
                if (!isDirectory) {
                    Files.copy(f, zip);
                }
                zip.closeEntry();
            }
        }
        Files.move(partial, jar, StandardCopyOption.ATOMIC_MOVE);
        return jar;
    }

    /** Of the Java runtime and every class path file's name, size and time: a new build's classes make a new archive. */
    private static String hash(List<Path> entries) throws IOException {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update((System.getProperty("java.home") + System.getProperty("java.vm.version")).getBytes(StandardCharsets.UTF_8));
            for (Path entry : entries) {
                try (Stream<Path> files = Files.walk(entry)) {
                    for (Path f : files.sorted().toList()) {
                        BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
                        digest.update((f + " " + a.size() + " " + a.lastModifiedTime().toMillis() + "\n").getBytes(StandardCharsets.UTF_8));
                    }
                }
            }
            return HexFormat.of().formatHex(digest.digest(), 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
