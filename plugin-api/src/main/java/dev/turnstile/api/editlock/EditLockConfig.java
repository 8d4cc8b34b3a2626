package dev.turnstile.api.editlock;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.internal.Ranges;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Edit lock settings of one resource type, with the paper's names: {@code heartbeat} (a lock
 * whose last heartbeat is older lapses), {@code timeout} (a lock held longer lapses),
 * {@code isMinimum} (paragraph granularity), {@code htmlTags} (where an article splits into
 * paragraphs, e.g. {@code p;pre}), and {@code maxLocksPerUser}. Defaults: the paper's 2 minutes
 * and 1 hour, paragraphs off, {@code p;pre}, 20 locks.
 *
 * @param heartbeat how long a lock lasts past its last heartbeat
 * @param timeout how long a lock lasts at most from its start
 * @param isMinimum whether paragraphs can be locked (paragraph granularity)
 * @param htmlTags the HTML elements that are paragraphs
 * @param maxLocksPerUser the most valid locks of this type one user may hold
 */
public record EditLockConfig(Duration heartbeat, Duration timeout, boolean isMinimum, List<String> htmlTags,
                             int maxLocksPerUser) {
    /** The paper's defaults: heartbeat 2 minutes, timeout 1 hour, paragraphs off, p and pre, 20 locks. */
    public static final EditLockConfig DEFAULTS = new EditLockConfig(Duration.ofMinutes(2), Duration.ofHours(1), false,
            List.of("p", "pre"), 20);

    public EditLockConfig {
        if (!Ranges.within(heartbeat, Duration.ofSeconds(1), Duration.ofDays(1))) {
            throw EngineRuntimeException.badArgument("edit lock heartbeat", heartbeat, Ranges.from(Duration.ofSeconds(1), Duration.ofDays(1)));
        }
        if (!Ranges.within(timeout, heartbeat, Duration.ofDays(30))) {
            throw EngineRuntimeException.badArgument("edit lock timeout", timeout, "from the heartbeat, " + heartbeat + ", to 30d");
        }
        if (htmlTags == null || htmlTags.isEmpty() || htmlTags.stream().anyMatch(t -> t == null || !t.matches("[a-z][a-z0-9]{0,9}"))) {
            throw EngineRuntimeException.badArgument("edit lock htmlTags", htmlTags, "HTML tag names such as p;pre");
        }
        if (!Ranges.within(maxLocksPerUser, 1, 100_000)) {
            throw EngineRuntimeException.badArgument("edit lock maxLocksPerUser", maxLocksPerUser, Ranges.from(1, 100_000));
        }
        htmlTags = List.copyOf(htmlTags);
    }

    /** Reads the paper's {@code p;pre} (also with the full-width semicolon the paper prints). */
    public static List<String> parseTags(String text) {
        if (text == null || text.isBlank()) {
            throw EngineRuntimeException.badArgument("edit lock htmlTags", text, "HTML tag names such as p;pre");
        }
        return List.of(text.toLowerCase(Locale.ROOT).replace('；', ';').split("\\s*;\\s*"));
    }
}
