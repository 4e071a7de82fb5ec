/**
 * `headsetd recordings list|download|delete`: the files the recorders wrote
 * (/system/recordings, docs/recording.md).
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import type { Command, Group } from '../command.js';
import { stringOption } from '../command.js';
import { UsageError } from '../failures.js';
import { progressBar } from '../live.js';
import { type Column, fixed, table } from '../table.js';
import { errorMessage } from '../../core/error-message.js';

export interface Recording {
  name: string;
  format: string;
  bytes: number;
  created: string;
  durationSeconds: number | null;
  channels: string[];
  sampleRate: number | null;
  complete: boolean;
}

export function size(bytes: number): string {
  if (bytes < 1024) return `${String(bytes)} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}

export const recordingColumns: Column<Recording>[] = [
  { header: 'NAME', value: (r) => r.name },
  { header: 'SIZE', value: (r) => size(r.bytes), align: 'right' },
  {
    header: 'DURATION',
    value: (r) => (r.durationSeconds === null ? '-' : `${fixed(r.durationSeconds, 1)} s`),
    align: 'right',
  },
  {
    header: 'RATE',
    value: (r) => (r.sampleRate === null ? '-' : `${String(r.sampleRate)} Hz`),
    align: 'right',
  },
  { header: 'CHANNELS', value: (r) => String(r.channels.length), align: 'right' },
  { header: 'CREATED', value: (r) => r.created },
  { header: 'COMPLETE', value: (r) => (r.complete ? 'yes' : 'no') },
];

function recordingPath(name: string): string {
  return `/system/recordings/${encodeURIComponent(name)}`;
}

const list: Command = {
  name: 'recordings list',
  summary: 'List the recordings: size, duration, rate, channels, start time, whether closed cleanly.',
  help: 'With --json: the API answer {success, recordings: [...]}.',
  async run({ client, out }) {
    const answer = await client.get<{ recordings: Recording[] }>('/system/recordings');
    if (out.json) {
      out.document(answer);
      return 0;
    }
    if (answer.recordings.length === 0) {
      out.note('no recordings (start one with: headsetd record start)');
      return 0;
    }
    for (const line of table(answer.recordings, recordingColumns, (t) => out.style('bold', t)))
      out.line(line);
    return 0;
  },
};

const download: Command = {
  name: 'recordings download',
  args: 'NAME [-o FILE]',
  summary: 'Download a recording.',
  help: `Options:
  -o, --output FILE   where to write it (default: NAME in the current directory; - for stdout)
An existing file is not overwritten unless --force is given. A progress bar shows on a terminal.
With --json: {success, name, file, bytes}.`,
  options: { output: { type: 'string', short: 'o' }, force: { type: 'boolean' } },
  positionals: { min: 1, max: 1 },
  async run({ client, out, values, positionals, signal, resolvePath }) {
    const name = positionals[0] ?? '';
    const output = stringOption(values, 'output') ?? path.basename(name);
    const answer = await client.send('GET', recordingPath(name), { signal });
    const total = Number(answer.headers['content-length'] ?? 0);
    let received = 0;
    const showProgress = output !== '-' && out.stderr.isTTY === true && total > 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        if (showProgress)
          out.stderr.write(`\r${progressBar(received / total, 30)} ${size(received)} / ${size(total)}`);
        callback(null, chunk);
      },
    });
    let sink: NodeJS.WritableStream = out.stdout;
    if (output !== '-') {
      const file = createWriteStream(resolvePath(output), { flags: values.force === true ? 'w' : 'wx' });
      try {
        await once(file, 'open');
      } catch (error) {
        answer.destroy();
        const exists = (error as NodeJS.ErrnoException).code === 'EEXIST';
        throw new UsageError(
          `cannot write ${output}: ${errorMessage(error)}${exists ? ' (use --force to overwrite)' : ''}`,
        );
      }
      sink = file;
    }
    await pipeline(answer, counter, sink, { end: output !== '-' });
    if (showProgress) out.stderr.write('\n');
    if (output === '-') return 0;
    if (out.json) out.document({ success: true, name, file: resolvePath(output), bytes: received });
    else out.line(`${name} → ${output} (${size(received)})`);
    return 0;
  },
};

const remove: Command = {
  name: 'recordings delete',
  args: 'NAME',
  summary: 'Delete a recording (refused while a recorder writes it).',
  help: 'With --json: the API answer {success}.',
  positionals: { min: 1, max: 1 },
  async run({ client, out, positionals }) {
    const name = positionals[0] ?? '';
    const answer = await client.request('DELETE', recordingPath(name));
    if (out.json) {
      out.document(answer);
      return 0;
    }
    out.line(`recording ${name} deleted`);
    return 0;
  },
};

export const recordingsGroup: Group = {
  name: 'recordings',
  summary: 'list, download and delete the recordings',
  commands: [list, download, remove],
};
