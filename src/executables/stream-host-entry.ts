/**
 * Where the stream worker's entry module is: the compiled stream-host.js beside this file, or, when
 * running from the TypeScript sources (tests, `tsx`), stream-host.ts itself (the runtime then loads
 * it through tsx). A module of its own so that naming the entry does not run it.
 */
const here = import.meta.url;

export const STREAM_HOST_ENTRY: URL = new URL(
  here.endsWith('.ts') ? './stream-host.ts' : './stream-host.js',
  here,
);
