package dev.turnstile.engine.db;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An unlock lets one waiter have the lock, so it wakes one, the longest waiting: woken all, every
 * waiter went at the row and all but one were refused (issue 16). A wake-up is never lost: one
 * given to a waiter that stops without using it goes to the next; a delete wakes every waiter.
 */
class WakeUpsTest {
    private final WakeUps wakeUps = WakeUps.local();

    @Test
    void wakeOne_wakesTheLongestWaiting_andTheNextWakeUpTheNext() {
        WakeUps.Ticket first = wakeUps.register(List.of("door"));
        WakeUps.Ticket second = wakeUps.register(List.of("door"));
        WakeUps.Ticket third = wakeUps.register(List.of("door", "gate"));

        wakeUps.wakeOne("door");
        assertThat(woken(first, second, third)).containsExactly(true, false, false);
        wakeUps.wakeOne("door");
        assertThat(woken(first, second, third)).containsExactly(true, true, false);
        wakeUps.wakeOne("gate");
        assertThat(woken(first, second, third)).containsExactly(true, true, true);
    }

    @Test
    void aWaiterThatStopsWithoutUsingItsWakeUp_passesItOn_oneThatUsedItDoesNot() {
        WakeUps.Ticket first = wakeUps.register(List.of("door"));
        WakeUps.Ticket second = wakeUps.register(List.of("door"));
        WakeUps.Ticket third = wakeUps.register(List.of("door"));

        wakeUps.wakeOne("door");
        first.close();
        assertThat(woken(second, third)).containsExactly(true, false);
        second.closeUsed();
        assertThat(woken(third)).containsExactly(false);
        wakeUps.wakeOne("door");
        assertThat(woken(third)).containsExactly(true);
    }

    @Test
    void wake_wakesEveryWaiter_andNoneOfAnotherKey() {
        WakeUps.Ticket first = wakeUps.register(List.of("door"));
        WakeUps.Ticket second = wakeUps.register(List.of("door"));
        WakeUps.Ticket other = wakeUps.register(List.of("gate"));

        wakeUps.wake("door");
        assertThat(woken(first, second, other)).containsExactly(true, true, false);
    }

    private static List<Boolean> woken(WakeUps.Ticket... tickets) {
        return Stream.of(tickets).map(WakeUps.Ticket::isWoken).toList();
    }
}
