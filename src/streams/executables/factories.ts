/**
 * The runtime side of the built-ins: name (as in builtins.ts) → NodeFactory. Implementations are
 * imported on demand; a data-plane worker loads them all as it boots (streams/runtime/host.ts), so the
 * streams it is given do not wait for module loading.
 */
import type { NodeFactory } from '../../core/node.js';

type FactoryLoader = () => Promise<NodeFactory>;

const LOADERS: Readonly<Record<string, FactoryLoader>> = {
  'signal-generator': async () => (await import('./signal-generator.js')).createSignalGenerator,
  'eeg-source': async () => (await import('./eeg-source.js')).createEegSource,
  // The maker's names (maker-builtins.ts): their config mapped onto the built-in that runs them.
  eeg_source: async () => {
    const [{ createEegSource }, { eegSourceConfigOf }] = await Promise.all([
      import('./eeg-source.js'),
      import('./maker-configs.js'),
    ]);
    return (context) => createEegSource({ ...context, config: { ...eegSourceConfigOf(context.config) } });
  },
  bandpass_filter: async () => {
    const [{ createFilter }, { bandpassSpecOf }] = await Promise.all([
      import('./filter.js'),
      import('./maker-configs.js'),
    ]);
    return (context) => createFilter({ ...context, config: { ...bandpassSpecOf(context.config) } });
  },
  filter: async () => (await import('./filter.js')).createFilter,
  websocket: async () => (await import('./websocket.js')).createWebSocketOutput,
  logger: async () => (await import('./logger.js')).createLogger,
  recorder: async () => (await import('./recorder.js')).createRecorder,
  tap: async () => (await import('./tap.js')).createTap,
  ingest: async () => (await import('./ingest.js')).createIngest,
  'lsl-outlet': async () => (await import('./lsl-outlet.js')).createLslOutlet,
  'lsl-inlet': async () => (await import('./lsl-inlet.js')).createLslInlet,
  reference: async () => (await import('./reference.js')).createReference,
  epoch: async () => (await import('./epoch.js')).createEpoch,
  'band-power': async () => (await import('./band-power.js')).createBandPower,
  resample: async () => (await import('./resample.js')).createResample,
  osc: async () => (await import('./osc.js')).createOscOutput,
  ssvep: async () => (await import('./ssvep.js')).createSsvep,
  ssvep_algo: async () => (await import('./ssvep.js')).createSsvep,
};

/** The factory of a built-in by its name; undefined for a name without an implementation. */
export async function loadBuiltinFactory(name: string): Promise<NodeFactory | undefined> {
  const loader = LOADERS[name];
  return loader === undefined ? undefined : loader();
}

/** Names of the built-ins this runtime implements. */
export const IMPLEMENTED_BUILTINS: readonly string[] = Object.keys(LOADERS);
