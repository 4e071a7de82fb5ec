/**
 * The Lab Streaming Layer built-ins as the control plane sees them (docs/lsl.md): lsl-outlet
 * publishes a stream's frames to the lab, lsl-inlet reads a lab stream into headsetd.
 */
import { Type } from 'typebox';
import { queryProblem } from '../../lsl/query.js';
import { type BuiltinDescriptor, COMMON_CONFIG, type ConfigIssue } from './builtin-descriptor.js';

const lslOutlet: BuiltinDescriptor = {
  name: 'lsl-outlet',
  aliases: [],
  role: 'sink',
  inputs: ['in'],
  outputs: [],
  description:
    'Publishes every frame as a Lab Streaming Layer stream (LabRecorder, MNE-LSL, any liblsl inlet); loopback only unless the service opens LSL on interfaces.',
  configSchema: Type.Object(
    {
      ...COMMON_CONFIG,
      name: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 255,
          description: "The LSL stream's name, as inlets resolve it. Default: the stream's meta.name.",
        }),
      ),
      type: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 64,
          default: 'EEG',
          description:
            "The LSL stream's content type (and each channel's type in the description). Default: EEG for frames in µV; frames of derived quantities get BandPower (µV², dB), Scores (1), Accelerometer (g, m/s²) or Mixed, each channel its own type (docs/lsl.md §Stream type and units).",
        }),
      ),
      sourceId: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 255,
          description:
            'Identifies the source across restarts, so that inlets recover. Default: stable per headset, stream and node.',
        }),
      ),
      channelFormat: Type.Optional(
        Type.Enum(['float32', 'double64'], {
          default: 'float32',
          description: 'Value type on the wire; float32 carries the frames’ samples exactly.',
        }),
      ),
      unit: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 64,
          default: 'microvolts',
          description:
            "The unit in the stream's description of every channel in µV; a channel in another unit (the frames' units) is described in its own.",
        }),
      ),
      chunkSize: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: 100000,
          default: 0,
          description:
            'Most samples per network write (0: one write per frame); an inlet asking for smaller chunks gets them.',
        }),
      ),
      maxBuffered: Type.Optional(
        Type.Number({
          exclusiveMinimum: 0,
          maximum: 360,
          default: 60,
          description:
            'Seconds of samples kept for each consumer that reads too slowly; beyond it its oldest samples are dropped (not the other consumers’).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
};

const lslInlet: BuiltinDescriptor = {
  name: 'lsl-inlet',
  aliases: [],
  role: 'source',
  inputs: [],
  outputs: ['out'],
  description:
    "Reads a Lab Streaming Layer stream found by name, type, source id or predicate: its samples as frames on headsetd's clock, with the stream's channel labels, units (voltages in µV, other units as declared) and rate.",
  configSchema: Type.Object(
    {
      ...COMMON_CONFIG,
      name: Type.Optional(
        Type.String({ minLength: 1, maxLength: 255, description: "The LSL stream's name to look for." }),
      ),
      type: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 64,
          description: "The LSL stream's content type to look for (EEG, Markers, Gaze, …).",
        }),
      ),
      sourceId: Type.Optional(
        Type.String({ minLength: 1, maxLength: 255, description: "The LSL stream's source id to look for." }),
      ),
      predicate: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 1024,
          description:
            "An XPath 1.0 predicate over the stream's info, as liblsl's resolve_bypred takes it (for example `starts-with(name,'Eye') and channel_count>2`).",
        }),
      ),
    },
    { additionalProperties: false },
  ),
  check(config) {
    const given = ['name', 'type', 'sourceId', 'predicate'].filter((key) => config[key] !== undefined);
    const issues: ConfigIssue[] = [];
    if (given.length === 0) {
      issues.push({
        path: '',
        message: 'an lsl-inlet needs at least one of name, type, sourceId or predicate to find its stream',
      });
    }
    const predicate = config.predicate;
    if (typeof predicate === 'string') {
      const problem = queryProblem(predicate);
      if (problem !== undefined) {
        issues.push({
          path: '/predicate',
          message: `the predicate is not an XPath 1.0 expression: ${problem}`,
        });
      }
    }
    for (const key of ['name', 'type', 'sourceId']) {
      const value = config[key];
      if (typeof value === 'string' && value.includes("'") && value.includes('"')) {
        issues.push({
          path: `/${key}`,
          message: `${key} may hold ' or ", not both: an LSL query cannot express it`,
        });
      }
    }
    return issues;
  },
};

export const LSL_BUILTINS: readonly BuiltinDescriptor[] = [lslOutlet, lslInlet];
