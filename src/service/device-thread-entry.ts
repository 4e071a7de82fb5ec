/**
 * Where the device's thread's entry module is: in the bundled service (dist/headsetd.mjs) the
 * thread's bundle dist/device-thread.mjs; else the compiled device-thread.js beside this file. From
 * the TypeScript sources (tests in process, `npm run dev`) there is none, since a worker thread
 * cannot load TypeScript by itself: the device then produces its frames on the main thread. A
 * module of its own so that naming the entry does not run it.
 */
const here = import.meta.url;

/** Set by scripts/bundle.mjs in the bundled service: the thread's bundle, relative to this module's twin. */
declare const HEADSETD_DEVICE_THREAD_BUNDLE: string | undefined;

function entry(): string | undefined {
  if (typeof HEADSETD_DEVICE_THREAD_BUNDLE === 'string') return HEADSETD_DEVICE_THREAD_BUNDLE;
  return here.endsWith('.ts') ? undefined : './device-thread.js';
}

const relative = entry();
export const DEVICE_THREAD_ENTRY: URL | undefined =
  relative === undefined ? undefined : new URL(relative, here);
