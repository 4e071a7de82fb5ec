/**
 * The streams that read the headset's EEG: those with a node whose executable is the `eeg-source`
 * built-in or the maker's `eeg_source`, by name or by an alias. The ones that run (or are paused,
 * which keeps their subscription) hold the acquisition: a `device_busy` answer names them, so that
 * a user knows which stream to stop. The runtime runs a reader in the device's own thread.
 */
import { resolveExecutable } from './executables/registry.js';
import type { StreamDefinition, StreamState } from '../core/stream-model.js';
import type { StreamEntry } from './entry.js';

const HOLDING_STATES = new Set<StreamState>(['starting', 'running', 'pausing', 'paused']);
const EEG_SOURCES = new Set(['eeg-source', 'eeg_source']);

function readsEeg(executable: string): boolean {
  try {
    const resolution = resolveExecutable(executable, []);
    return resolution.kind === 'builtin' && EEG_SOURCES.has(resolution.descriptor.name);
  } catch {
    return false;
  }
}

/** Whether a stream has a node that reads the device's EEG. */
export function readsDevice(definition: StreamDefinition): boolean {
  return definition.nodes.some((node) => readsEeg(node.executable));
}

/** Ids of the streams among `entries` that read the device's EEG now. */
export function eegReaders(entries: readonly StreamEntry[]): string[] {
  return entries
    .filter((e) => HOLDING_STATES.has(e.state) && readsDevice(e.definition))
    .map((e) => e.definition.id);
}
