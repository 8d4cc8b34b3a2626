package dev.turnstile.bench;

import com.sun.management.OperatingSystemMXBean;

import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * What JVMs spent over a measured window: process CPU time (every thread's, the JIT compilers'
 * too), the JIT compilers' accumulated time, and the wall time; summed over the JVMs of a cell (a
 * multi-process cell: each child's, sent to the parent as a {@link #line}). On two cores a column
 * that is behind may be behind on CPU, and a cold JVM spends much of its CPU compiling.
 */
record Spent(long cpuNanos, long jitMillis, long wallNanos) {
    static final Spent NONE = new Spent(0, 0, 0);

    /** This JVM's reading now; {@link #since} an earlier one is what the window between spent. */
    static Spent now() {
        return new Spent(((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime(),
                ManagementFactory.getCompilationMXBean().getTotalCompilationTime(), System.nanoTime());
    }

    Spent since(Spent before) {
        return new Spent(cpuNanos - before.cpuNanos, jitMillis - before.jitMillis, wallNanos - before.wallNanos);
    }

    /** Two JVMs over the same window: their CPU and JIT times added, the longer wall time. */
    Spent plus(Spent other) {
        return new Spent(cpuNanos + other.cpuNanos, jitMillis + other.jitMillis, Math.max(wallNanos, other.wallNanos));
    }

    /** "CPU ms per operation | JIT share of the window" (100 % = one core compiling the whole time). */
    String perOperation(long operations) {
        return String.format(Locale.ROOT, "%.2f | %.0f %%", cpuNanos / 1e6 / Math.max(1, operations),
                100.0 * jitMillis / Math.max(1, wallNanos / 1e6));
    }

    /** As a child prints it for its parent ({@link #parse}). */
    String line() {
        return "SPENT " + cpuNanos + " " + jitMillis + " " + wallNanos;
    }

    static Spent parse(String line) {
        String[] f = line.split(" ");
        return new Spent(Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
    }
}
