/**
 * The times a frame's `timestamp` may hold (ms since the Unix epoch): 1985-01-01T00:00:00Z up to,
 * not including, 2085-01-01T00:00:00Z. That is the span an EDF/BDF header can date (its two-digit
 * year means 1985–2084), so every recording format can write every accepted frame, and it refuses
 * the usual mistakes: seconds instead of ms (1.7e9 is January 1970), µs or ns instead of ms (a year
 * beyond 50 000), 0, and values such as 1e300. The ingest WebSocket refuses other timestamps
 * (docs/api.md §Quick EEG streams); a recorder that still gets one (an external node, an inlet)
 * stops with {@link frameTimeProblem}'s message (docs/recording.md).
 */

/** 1985-01-01T00:00:00Z, ms since the epoch: the first time accepted. */
export const FRAME_TIME_MIN_MS = Date.UTC(1985, 0, 1);
/** 2085-01-01T00:00:00Z, ms since the epoch: the first time past the accepted span. */
export const FRAME_TIME_END_MS = Date.UTC(2085, 0, 1);

/** The accepted span, said once for every refusal. */
export const FRAME_TIME_SPAN = `ms since the Unix epoch from ${FRAME_TIME_MIN_MS} to ${FRAME_TIME_END_MS - 1} (1985-01-01 to 2084-12-31 UTC)`;

/** True when `ms` is a frame time every output can write. */
export function isFrameTime(ms: number): boolean {
  return Number.isFinite(ms) && ms >= FRAME_TIME_MIN_MS && ms < FRAME_TIME_END_MS;
}

/** Why `ms` cannot be a frame's time, for a person; undefined when it can. */
export function frameTimeProblem(ms: number): string | undefined {
  if (isFrameTime(ms)) return undefined;
  return `timestamp ${String(ms)} is not a time a frame can have: it must be ${FRAME_TIME_SPAN}`;
}
