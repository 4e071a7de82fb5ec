/** The replay device: a recording's EEG, everything else simulated (docs/device.md §Replay device). */
export { createReplayHeadset, ReplayHeadset, type ReplayHeadsetOptions } from './replay-headset.js';
export type { ReplayRecordingInfo } from './recording.js';
export { ManualClock } from './manual-clock.js';
