/**
 * A start the device refuses, decided on the main thread before the stream is handed to the
 * runtime: an eeg-source (or the maker's eeg_source) naming channels the device does not acquire
 * now. A start answers within a short wait (api/stream-signal.ts) and reports what fails later as a
 * `stream_failed` event; a refusal known before any worker runs must not depend on how soon the
 * worker gets to it, so it is the start's own answer (409 `channels_unavailable`, pointing at the
 * channel). The check is the device's own (GraphContext.subscriptionRefusal), the one its
 * subscription makes again when the node starts.
 */
import { type HeadsetdError, isHeadsetdError } from '../core/errors.js';
import type { StreamDefinition } from '../core/stream-model.js';
import { resolveExecutable } from './executables/registry.js';
import type { GraphContext } from './graph-document.js';
import { nodeStartError } from './runtime/running-graph.js';
import type { NodeFailureError } from './runtime/stream-runtime.js';

/** The first node of `definition` whose device subscription would be refused now, as its failure. */
export function deviceRefusal(
  definition: StreamDefinition,
  context: GraphContext,
): NodeFailureError | undefined {
  const refuse = context.subscriptionRefusal;
  if (refuse === undefined) return undefined;
  for (const node of definition.nodes) {
    let resolution: ReturnType<typeof resolveExecutable>;
    try {
      resolution = resolveExecutable(node.executable, context.executablesDirs);
    } catch {
      // An executable that cannot be resolved now is the start's to report, as before.
      continue;
    }
    if (resolution.kind !== 'builtin') continue;
    const channels = resolution.descriptor.subscribedChannels?.(node.config ?? {});
    if (channels === undefined) continue;
    // Upper-case, as the node subscribes (eeg-source.ts). A name the device no longer plays is
    // thrown (validation_failed at the name): the node's failure as well.
    let refusal: HeadsetdError | undefined;
    try {
      refusal = refuse(channels.map((c) => c.toUpperCase()));
    } catch (error) {
      if (!isHeadsetdError(error)) throw error;
      refusal = error;
    }
    if (refusal !== undefined) return nodeStartError(node.id, refusal);
  }
  return undefined;
}
