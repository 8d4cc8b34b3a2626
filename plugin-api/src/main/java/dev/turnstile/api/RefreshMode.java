package dev.turnstile.api;

/** Whether a save brings the new state (values, USN, dates) back into the saved instance. */
public enum RefreshMode {
    /** The instance holds the saved state and new USN afterwards, with no extra query. */
    REFRESH,
    /** The instance keeps its old USN: its next conditional save fails until it is fetched again. */
    NO_REFRESH
}
