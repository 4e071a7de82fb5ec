/**
 * The package's entry points, as a program that depends on headsetd imports them (from dist/,
 * which `npm test` builds first): the library entry and the custom-node SDK.
 */
import { expect, test } from 'vitest';

/** By name, as a dependent program would; not a literal, so type-checking does not need dist/. */
async function load(specifier: string): Promise<Record<string, unknown>> {
  return (await import(specifier)) as Record<string, unknown>;
}

test('headsetd exports the server, settings, errors and devices', async () => {
  const library = await load('headsetd');
  for (const name of [
    'startServer',
    'loadSettings',
    'HeadsetdError',
    'createSimulatedHeadset',
    'createReplayHeadset',
    'frameToJson',
  ]) {
    expect(library[name], name).toBeDefined();
  }
});

test('headsetd/sdk exports what a custom node needs', async () => {
  const sdk = await load('headsetd/sdk');
  for (const name of ['run', 'send', 'config', 'frameLike']) expect(sdk[name], name).toBeDefined();
});
