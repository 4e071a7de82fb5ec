/**
 * The streams that hold the headset's EEG acquisition: those that run (or are paused, which keeps
 * their subscription) with a node whose executable is the `eeg-source` built-in, by name or by
 * an alias. A `device_busy` answer names them, so that a user knows which stream to stop.
 */
import { resolveExecutable } from './executables/registry.js';
import type { StreamState } from '../core/stream-model.js';
import type { StreamEntry } from './entry.js';

const HOLDING_STATES = new Set<StreamState>(['starting', 'running', 'pausing', 'paused']);

function readsEeg(executable: string): boolean {
  try {
    const resolution = resolveExecutable(executable, []);
    return resolution.kind === 'builtin' && resolution.descriptor.name === 'eeg-source';
  } catch {
    return false;
  }
}

/** Ids of the streams among `entries` that read the device's EEG now. */
export function eegReaders(entries: readonly StreamEntry[]): string[] {
  return entries
    .filter((e) => HOLDING_STATES.has(e.state) && e.definition.nodes.some((n) => readsEeg(n.executable)))
    .map((e) => e.definition.id);
}
