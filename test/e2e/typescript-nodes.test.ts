/**
 * One-file TypeScript nodes as docs/node-protocol.md §8 shows them: the document's `gain.ts` and
 * its stream, copied verbatim into an executables directory and sent to the built service
 * (dist/headsetd.mjs), where `node gain.ts` runs as a real child process; the same file
 * type-checks against the package's `headsetd/sdk` as a project that depends on headsetd sees it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { parse } from 'yaml';
import { parsedOnceHost } from '../support/parsed-once.js';
import { json, ROOT, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

const DOC = readFileSync(path.join(ROOT, 'docs', 'node-protocol.md'), 'utf8');

/** The text of the first fenced block of `language` after `after` in the node protocol's document. */
function block(language: string, after: string): string {
  const from = DOC.indexOf(after);
  expect(from, `'${after}' in docs/node-protocol.md`).toBeGreaterThanOrEqual(0);
  const match = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(DOC.slice(from));
  if (match?.[1] === undefined) throw new Error(`no ${language} block after '${after}'`);
  return match[1];
}

const GAIN_TS = block('ts', 'TypeScript (one file in the executables directory');
const STREAM_YAML = block('yaml', 'and a stream that runs it');
const executables = scratchDir('headsetd-ts-nodes');
const outside = scratchDir('headsetd-ts-outside');
let service: Service;

beforeAll(async () => {
  writeFileSync(path.join(executables, 'gain.ts'), GAIN_TS);
  writeFileSync(
    path.join(executables, 'crash.ts'),
    [
      "import { run } from 'headsetd/sdk';",
      '',
      'interface Limit { value: number }',
      'const limit: Limit = { value: 1 };',
      'run({',
      '  onData(): void {',
      '    throw new Error(`over the limit ${limit.value}`);',
      '  },',
      '});',
      '',
    ].join('\n'),
  );
  writeFileSync(path.join(executables, 'broken.ts'), 'const x: number = ;\n');
  writeFileSync(path.join(outside, 'gain.ts'), GAIN_TS);
  service = await startService({ args: ['--executables-dir', executables] });
});

afterAll(async () => {
  await service.stop('SIGKILL');
});

async function create(yaml: string): Promise<{ status: number; body: any }> {
  return json(`${service.url}/stream/streams/yaml`, {
    method: 'POST',
    headers: { 'content-type': 'text/yaml' },
    body: yaml,
  });
}

async function start(id: string): Promise<{ status: number; body: any }> {
  return json(`${service.url}/stream/streams/${id}/signal`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ signal: 'start' }),
  });
}

async function nodeOf(id: string, nodeId: string): Promise<any> {
  const { body } = await json(`${service.url}/stream/streams/${id}/status`);
  return (body.status.nodes as any[]).find((n) => n.id === nodeId);
}

/** `count` JSON frames from a websocket node's port. */
async function frames(port: number, count: number): Promise<{ data: number[][] }[]> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}`);
  const received: { data: number[][] }[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      socket.on('message', (data: Buffer) => {
        received.push(JSON.parse(data.toString()) as { data: number[][] });
        if (received.length === count) resolve();
      });
      socket.once('error', reject);
    });
  } finally {
    socket.close();
  }
  return received;
}

test('node gain.ts, the documented TypeScript node, runs in a stream on Node 20 (was ERR_UNKNOWN_FILE_EXTENSION)', async () => {
  const id = (parse(STREAM_YAML) as { id: string }).id;
  expect((await create(STREAM_YAML)).status).toBe(200);
  const started = await start(id);
  expect(started.body, JSON.stringify(started.body)).toMatchObject({ success: true });

  // The start answer does not wait for a node's process to report ready (a busy machine may take
  // longer than the answer's wait): the node's state says when it runs.
  const gain = await eventually(
    async () => {
      const node = await nodeOf(id, 'gain');
      return node.state === 'running' ? node : undefined;
    },
    30_000,
    'node gain running',
  );
  const child = readFileSync(`/proc/${gain.pid}/cmdline`, 'utf8').split('\0');
  expect(child[0]).toBe('node');
  expect(child[2]?.startsWith(path.join(service.dataDir, 'cache', 'typescript-nodes'))).toBe(true);

  const out = await eventually(
    async () => {
      const node = await nodeOf(id, 'out');
      return (node.port ?? 0) > 0 ? node : undefined;
    },
    30_000,
    'node out listening',
  );
  const received = await frames(out.port as number, 30);
  // The generator's sine of amplitude 1, times the config's gain 3.
  const peak = Math.max(...received.flatMap((f) => f.data.flat()).map(Math.abs));
  expect(peak).toBeGreaterThan(2.9);
  expect(peak).toBeLessThanOrEqual(3.0001);

  const logs = await json(`${service.url}/stream/streams/${id}/nodes/gain/logs`);
  expect((logs.body.logs as { line: string }[]).map((l) => l.line)).toContain('gain 3');
  // Transpiled once: a restart of the node reuses the cached file.
  expect(readdirSync(path.join(service.dataDir, 'cache', 'typescript-nodes'))).toHaveLength(1);
});

/**
 * The diagnostics `tsc -p project` reports for `rootNames` (the project's own files unless given),
 * formatted as tsc prints them: the compiler's API in this process, with the project's
 * tsconfig.json as tsc reads it. A tsc process cost about 2 s of CPU each time, mostly loading the
 * compiler and parsing Node's types again; here the files read are parsed once (parsed-once.ts).
 */
function typeCheck(project: string, rootNames?: string[]): string {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(project, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error(`no tsconfig.json in ${project}`);
  const program = ts.createProgram({
    rootNames: rootNames ?? config.fileNames,
    options: config.options,
    host: parsedOnceHost(config.options),
  });
  return ts.formatDiagnostics([...config.errors, ...ts.getPreEmitDiagnostics(program)], {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => project,
    getNewLine: () => '\n',
  });
}

test('gain.ts type-checks against headsetd/sdk as installed in a project', () => {
  const project = scratchDir('headsetd-ts-project');
  mkdirSync(path.join(project, 'node_modules', '@types'), { recursive: true });
  symlinkSync(ROOT, path.join(project, 'node_modules', 'headsetd'));
  symlinkSync(
    path.join(ROOT, 'node_modules', '@types', 'node'),
    path.join(project, 'node_modules', '@types', 'node'),
  );
  writeFileSync(path.join(project, 'package.json'), '{"type": "module"}\n');
  writeFileSync(path.join(project, 'gain.ts'), GAIN_TS);
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'NodeNext',
        target: 'ES2022',
        noEmit: true,
        types: ['node'],
        skipLibCheck: true,
      },
      files: ['gain.ts'],
    }),
  );
  expect(existsSync(path.join(ROOT, 'dist', 'streams', 'sdk', 'node.d.ts'))).toBe(true);
  // No diagnostics: tsc's, printed, when the example does not type-check.
  expect(typeCheck(project)).toBe('');
  // And a wrong use of the SDK is caught: the types are real, not `any`. In a file of its own
  // beside gain.ts (same package.json, same options), as a parsed file is kept by its name.
  const wrong = path.join(project, 'gain-wrong.ts');
  writeFileSync(wrong, GAIN_TS.replace("send('out', frameLike(frame, scaled))", "send('out', scaled)"));
  expect(typeCheck(project, [wrong])).toMatch(
    /^gain-wrong\.ts\(\d+,\d+\): error TS2345: Argument of type .* is not assignable to parameter of type 'OutputFrame'/,
  );
}, 90_000);

test('a TypeScript node named alone runs, and its crash report names the lines of the .ts file', async () => {
  const id = '5e7c2a8f-1b3d-4c6e-9f0a-2b4c6d8e0f13';
  const yaml = [
    `id: ${id}`,
    'nodes:',
    '  - {id: gen, executable: signal-generator, config: {sampleRate: 250, amplitudes: [1], frequencies: [10]}}',
    '  - {id: crash, executable: crash.ts, config: {restart: "no"}}',
    'pipes:',
    '  - {id: p1, source: gen, target: crash}',
    '',
  ].join('\n');
  expect((await create(yaml)).status).toBe(200);
  await start(id);
  const crashed = await eventually(async () => {
    const node = await nodeOf(id, 'crash');
    return node.metrics.lastError === null ? undefined : (node.metrics.lastError as string);
  });
  // The script's name, not its transpiled twin's, in the report; its own lines in the stack.
  expect(crashed).toContain(`external node '${process.execPath} ${path.join(executables, 'crash.ts')}'`);
  expect(crashed).toContain('over the limit 1');
  // The stack is the child's stderr, whose lines may reach the node's log after its error report.
  const where = `${path.join(executables, 'crash.ts')}:7:`;
  await eventually(
    async () => {
      const logs = await json(`${service.url}/stream/streams/${id}/nodes/crash/logs`);
      return (logs.body.logs as { line: string }[]).some((l) => l.line.includes(where)) || undefined;
    },
    10_000,
    `a log line naming ${where}`,
  );
});

test('a TypeScript node with a syntax error fails its start naming the file, line and column', async () => {
  const id = '7a9c1e3f-5b7d-4f1a-8c2e-4d6f8a0c2e35';
  const yaml = `id: ${id}\nnodes:\n  - {id: broken, executable: node broken.ts}\n`;
  expect((await create(yaml)).status).toBe(200);
  const started = await start(id);
  expect(started.status).toBe(422);
  expect(started.body.error.message).toContain(
    `${path.join(executables, 'broken.ts')}:1:19 could not be transpiled`,
  );
});

test('a TypeScript script outside the executables directories is refused like any other', async () => {
  const yaml = `id: 9c1e3a5b-7d9f-4b2d-8e4a-6c8e0a2c4e57\nnodes:\n  - {id: g, executable: node ${path.join(outside, 'gain.ts')}}\n`;
  const created = await create(yaml);
  expect(created.status).toBe(403);
  expect(created.body.error.code).toBe('executable_not_allowed');
});
