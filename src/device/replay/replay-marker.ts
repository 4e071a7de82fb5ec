/**
 * A marker the replay device plays: an annotation of the file (recording.ts) or a rise of its
 * trigger signal's code (triggers.ts). Both files make them, so the type is neither's.
 */

/** An annotation of the file (or a trigger code), replayed as a marker when playback reaches `position`. */
export interface ReplayMarker {
  /** Sample of the pass (0-based, per channel) the annotation falls on. */
  readonly position: number;
  /** Seconds from the file's first sample, as the file says. */
  readonly onset: number;
  readonly duration: number | undefined;
  readonly text: string;
}
