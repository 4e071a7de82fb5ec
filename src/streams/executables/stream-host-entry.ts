/**
 * Where the stream worker's entry module is: in the bundled service (dist/headsetd.mjs) the
 * worker's bundle dist/stream-host.mjs; else the compiled stream-host.js beside this file, or, when
 * running from the TypeScript sources (tests, `tsx`), stream-host.ts itself (the runtime then loads
 * it through tsx). A module of its own so that naming the entry does not run it.
 */
const here = import.meta.url;

/** Set by scripts/bundle.mjs in the bundled service: the worker's bundle, relative to this module's twin. */
declare const HEADSETD_WORKER_BUNDLE: string | undefined;

function entry(): string {
  if (typeof HEADSETD_WORKER_BUNDLE === 'string') return HEADSETD_WORKER_BUNDLE;
  return here.endsWith('.ts') ? './stream-host.ts' : './stream-host.js';
}

export const STREAM_HOST_ENTRY: URL = new URL(entry(), here);
