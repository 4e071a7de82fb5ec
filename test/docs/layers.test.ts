/**
 * The layering of src/ (scripts/layers.mjs) is what lint enforces and what docs/architecture.md
 * shows: imports against it fail lint, imports along it pass, and the picture in the docs is the
 * one the table draws. Sibling sub-folders of api/ stay apart, and the dashboard (web/) imports
 * its own files, npm packages and only types of the service.
 */
import { readFileSync } from 'node:fs';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, test } from 'vitest';
import { layerRule, webRule } from '../../scripts/eslint-layers.mjs';
import { LAYERS, picture, refusal } from '../../scripts/layers.mjs';

const root = new URL('../../', import.meta.url).pathname;

// Only the layer rule, on a plain parser: what is checked here is the rule, not the type-aware config.
const linter = new Linter({ configType: 'flat', cwd: root });
function lint(file: string, source: string): string[] {
  return linter
    .verify(
      source,
      [
        { ...layerRule, files: ['**/*.ts'] },
        { ...webRule, files: ['web/**/*.ts'] },
        { languageOptions: { parser: tseslint.parser } },
      ],
      {
        filename: `${root}${file}`,
      },
    )
    .map((message) => message.message);
}

describe('layers', () => {
  test.each([
    [
      'src/core/frame.ts',
      "import { x } from '../api/app.js';",
      /core\/ \(vocabulary\) may not import src\/api\//,
    ],
    [
      'src/streams/runtime/running-graph.ts',
      "import { x } from '../executables/factories.js';",
      /higher layer/,
    ],
    [
      'src/streams/manager.ts',
      "import type { Headset } from '../device/headset.js';",
      /both in the domain layer/,
    ],
    ['src/api/streams.ts', "import { x } from '../service/server.js';", /may not import the composer/],
    ['src/service/server.ts', "import { main } from '../cli.js';", /may not import an entry point/],
    [
      'src/formats/edf-writer.ts',
      "export { openDatabase } from '../platform/store/database.js';",
      /higher layer/,
    ],
    // A domain holds units of several layers: the data plane in streams/runtime/ may not reach the
    // stream lifecycle in streams/ itself, nor the device its services in device/settings/.
    [
      'src/streams/runtime/pipe.ts',
      "import { x } from '../manager.js';",
      /src\/streams\/runtime\/ \(data plane\) may not import src\/streams\//,
    ],
    ['src/device/headset.ts', "import { x } from './settings/config.js';", /higher layer/],
    [
      'src/platform/store/database.ts',
      "import { x } from '../schemas/validator.js';",
      /both in the platform layer/,
    ],
    [
      'src/streams/runtime/host.ts',
      "const m = await import('../executables/stream-host.js');",
      /higher layer/,
    ],
    [
      'src/dsp/sos.ts',
      "type T = import('../streams/runtime/stream-runtime.js').StreamRuntime;",
      /higher layer/,
    ],
    ['src/formats/units.ts', "import { LslReader } from '../lsl/reader.js';", /higher layer/],
    ['src/newfolder/x.ts', "import { x } from '../core/frame.js';", /is in no layer/],
    [
      'src/api/guides/history.ts',
      "import { listParam } from '../system/http-helpers.js';",
      /a sibling sub-folder/,
    ],
    ['src/api/system/config.ts', "import type { X } from '../instinct/schemas.js';", /a sibling sub-folder/],
    ['web/src/api.ts', "import { Stream } from '../../src/platform/schemas/stream.js';", /only types/],
    [
      'web/src/api.ts',
      "import type { X } from '../../src/api/app.js';",
      /web\/ may not import src\/api\/app/,
    ],
    ['web/src/plots.ts', "import { readFileSync } from 'node:fs';", /Node\.js built-in/],
    ['web/src/plots.ts', "import { readFileSync } from 'fs';", /Node\.js built-in/],
  ])('%s refuses %s', (file, source, reason) => {
    const messages = lint(file, source);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(reason);
  });

  test.each([
    ['src/api/streams.ts', "import { x } from '../streams/manager.js';"],
    ['src/streams/executables/stream-host.ts', "import { runStreamHost } from '../runtime/host.js';"],
    ['src/formats/edf-writer.ts', "import type { Frame } from '../core/frame.js';"],
    ['src/lsl/columns.ts', "import { frameUnitOf } from '../formats/units.js';"],
    ['src/service/server.ts', "import { createApp } from '../api/app.js';"],
    ['src/cli.ts', "import { startServer } from './service/server.js';"],
    ['src/streams/manager.ts', "import { x } from './runtime/pipe.js';"],
    ['src/device/settings/config.ts', "import type { Headset } from '../headset.js';"],
    ['src/formats/edf-writer.ts', "import { HeadsetdError } from '../core/errors.js';"],
    ['src/streams/runtime/running-graph.ts', "import { x } from './pipe.js'; import { y } from 'node:fs';"],
    ['test/support/service.ts', "import { x } from '../../src/service/server.js';"],
    ['src/api/guides/history.ts', "import { listParam } from '../http-helpers.js';"],
    ['src/api/app.ts', "import { systemPlugin } from './system/index.js';"],
    ['src/api/system/debug.ts', "import type { SystemContext } from './index.js';"],
    ['web/src/panels/streams.ts', "import { api } from '../api';"],
    ['web/src/api.ts', "import type { Stream } from '../../src/platform/schemas/stream.js';"],
    ['web/src/plots.ts', "import FFT from 'fft.js';"],
  ])('%s may %s', (file, source) => {
    expect(lint(file, source)).toEqual([]);
  });

  test('no two units import each other: a unit only reaches strictly lower layers', () => {
    const folders = LAYERS.flatMap((layer) => layer.folders);
    for (const a of folders)
      for (const b of folders) {
        if (a === b) continue;
        expect(refusal(a, b) === undefined && refusal(b, a) === undefined, `${a} ⇄ ${b}`).toBe(false);
      }
  });

  test("docs/architecture.md shows the table's picture", () => {
    const doc = readFileSync(`${root}docs/architecture.md`, 'utf8');
    expect(doc).toContain(`\`\`\`\n${picture()}\n\`\`\``);
  });
});
