/**
 * Errors whose stack nobody reads, made without capturing one: the SDK's "not applicable" (thrown
 * once per policy and resource it does not concern) and the promises the SDK tracks offline. V8
 * captures up to `Error.stackTraceLimit` frames when an error is constructed, whether or not its
 * stack is ever read.
 */

/** Runs `fn` with `Error.stackTraceLimit` 0, restoring the limit however `fn` ends. */
export function withoutStackTrace<T>(fn: () => T): T {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
        return fn();
    } finally {
        Error.stackTraceLimit = limit;
    }
}
