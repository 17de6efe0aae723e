/**
 * The time budget of a node drain (ARCHITECTURE fact 10). Pure; the policies' defaults and the
 * stack config's checks read the same numbers.
 */

/**
 * Bounds of a pod's `terminationGracePeriodSeconds`: above a preStop sleep (about 5 s) plus the
 * longest request, and inside the node's drain window (the 2-minute Spot notice included).
 */
export const POD_GRACE_SECONDS = { min: 30, max: 120 } as const;

/** Seconds between EC2's Spot interruption notice and the instance's termination. */
export const SPOT_NOTICE_SECONDS = 120;

/** A pod's `terminationGracePeriodSeconds` when its spec sets none (Kubernetes API default). */
export const DEFAULT_TERMINATION_GRACE_SECONDS = 30;

/** A lifecycle hook's heartbeat when `heartbeatTimeout` is unset (AWS `PutLifecycleHook` API reference). */
export const DEFAULT_HOOK_HEARTBEAT_SECONDS = 3600;
