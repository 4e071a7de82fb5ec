/**
 * `headsetd eeg start|stop|config|watch`: the client's hold on EEG acquisition, its configuration
 * and a live view of the signal (docs/system-paths.md §EEG acquisition).
 */
import type { Command, Group } from '../command.js';
import { listOption, stringOption } from '../command.js';
import { UsageError } from '../failures.js';
import type { Output } from '../output.js';
import { watchCommand } from './eeg-watch.js';
import { EEG_GAINS, EEG_SAMPLING_FREQUENCIES } from '../../core/hardware.js';
import { orList } from '../../core/or-list.js';

export interface EegConfig {
  channels: string[];
  gain: number;
  samplingFrequency: number;
}

export function describeConfig(config: EegConfig): string {
  return `${String(config.channels.length)} channels (${config.channels.join(' ')}), ${String(config.samplingFrequency)} Hz, gain ${String(config.gain)}`;
}

function printConfig(out: Output, config: EegConfig): void {
  out.line(`channels           ${config.channels.join(' ')}`);
  out.line(`samplingFrequency  ${String(config.samplingFrequency)} Hz`);
  out.line(`gain               ${String(config.gain)}`);
}

const start: Command = {
  name: 'eeg start',
  summary: 'Start EEG acquisition (the client hold; streams with an eeg-source hold it too).',
  help: 'With --json: the API answer {success, streaming, config}.',
  async run({ client, out }) {
    const answer = await client.post<{ streaming: boolean; config: EegConfig }>('/system/sensors/eeg/stream');
    if (out.json) {
      out.document(answer);
      return 0;
    }
    out.line(`acquiring: ${describeConfig(answer.config)}`);
    return 0;
  },
};

const stop: Command = {
  name: 'eeg stop',
  summary: "Release the client's hold on acquisition (it goes on while a stream holds it).",
  help: 'With --json: the API answer {success, streaming, samples}.',
  async run({ client, out }) {
    const answer = await client.request<{ streaming: boolean; samples: number }>(
      'DELETE',
      '/system/sensors/eeg/stream',
    );
    if (out.json) {
      out.document(answer);
      return 0;
    }
    out.line(
      answer.streaming
        ? `acquisition goes on: a stream holds it (${String(answer.samples)} samples so far)`
        : `acquisition stopped after ${String(answer.samples)} samples`,
    );
    return 0;
  },
};

const config: Command = {
  name: 'eeg config',
  args: '[--rate HZ] [--gain N] [--channels LIST] [--reset [--force]]',
  summary: 'Show the EEG configuration, or change it.',
  help: `Options:
  --rate HZ          sampling frequency: ${orList(EEG_SAMPLING_FREQUENCIES)}
  --gain N           ${orList(EEG_GAINS)}
  --channels LIST    EEG electrodes, comma-separated or repeated (e.g. O1,O2,CZ)
  --reset            stop acquisition and restore the configured defaults (refused while
                     streams read the EEG: the answer names them)
  --force            with --reset: reset even then; the streams report it and take
                     acquisition again with the restored configuration
A change while acquiring applies at once (acquisition restarts). With --json: {success, config}.`,
  options: {
    rate: { type: 'string' },
    gain: { type: 'string' },
    channels: { type: 'string', multiple: true },
    reset: { type: 'boolean' },
    force: { type: 'boolean' },
  },
  async run({ client, out, values }) {
    const rate = stringOption(values, 'rate');
    const gain = stringOption(values, 'gain');
    const channels = listOption(values, 'channels');
    const changing = rate !== undefined || gain !== undefined || channels !== undefined;
    if (values.reset === true && changing) throw new UsageError('eeg config: --reset takes no other option.');
    if (values.force === true && values.reset !== true)
      throw new UsageError('eeg config: --force goes with --reset.');
    let answer: { config: EegConfig };
    if (values.reset === true) {
      const force = values.force === true ? '?force=true' : '';
      answer = await client.request('DELETE', `/system/sensors/eeg${force}`);
    } else if (changing) {
      answer = await client.request('PUT', '/system/sensors/eeg', {
        json: {
          ...(rate === undefined ? {} : { samplingFrequency: rate }),
          ...(gain === undefined ? {} : { gain }),
          ...(channels === undefined ? {} : { channels }),
        },
      });
    } else {
      const { status } = await client.get<{ status: { eeg: { config: EegConfig } } }>('/system/status');
      answer = { config: status.eeg.config };
    }
    if (out.json) {
      out.document({ success: true, config: answer.config });
      return 0;
    }
    printConfig(out, answer.config);
    return 0;
  },
};

export const eegGroup: Group = {
  name: 'eeg',
  summary: 'start and stop acquisition, configure it, watch the signal live',
  commands: [start, stop, config, watchCommand],
};
