package dev.turnstile.samples.startup;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import java.lang.management.ManagementFactory;

/**
 * Starts an application, prints how long the JVM took to a ready context and the CPU it used,
 * and exits: the measure of bench/spring-boot-startup.sh (the starter's start-up cost, with and
 * without it on the class path). The class is named as text so that it runs without Turnstile.
 */
public final class StartupCost {
    private StartupCost() {
    }

    public static void main(String[] args) throws Exception {
        Class<?> application = Class.forName(args[0]);
        ConfigurableApplicationContext context = SpringApplication.run(application,
                "--spring.main.web-application-type=none", "--spring.main.banner-mode=off", "--logging.level.root=WARN");
        long readyMillis = ManagementFactory.getRuntimeMXBean().getUptime();
        long cpuMillis = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime() / 1_000_000;
        System.out.println("STARTUP " + application.getSimpleName() + " ready_ms=" + readyMillis + " cpu_ms=" + cpuMillis
                + " beans=" + context.getBeanDefinitionCount());
        context.close();
        System.exit(0);
    }
}
