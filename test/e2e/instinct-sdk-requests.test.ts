/**
 * The maker's SDK's 29 calls made by Python `requests` itself (Debian's python3-requests), with the
 * keywords and timeouts the SDK passes it (test/fixtures/instinct/sdk_calls.py), so that headers,
 * form and JSON encodings are the library's own, Python's `2.0` and `None` included. Each answer is
 * checked against the SDK's model (test/support/instinct-models.ts). Before, none succeeded.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as models from '../support/instinct-models.js';
import { type Service, startService } from '../support/service.js';

const hasRequests =
  spawnSync('/usr/bin/python3', ['-c', 'import requests'], { timeout: 10_000 }).status === 0;

let service: Service | undefined;
beforeAll(async () => {
  if (hasRequests) service = await startService();
});
afterAll(async () => {
  await service?.stop();
});

/** The model of each call's answer; `list` for the calls answered by a list of it. */
const MODELS: Record<string, { model: models.Model; list?: boolean }> = {
  get_state: { model: models.DeviceState },
  get_name: { model: models.DeviceName },
  set_name: { model: models.SetNameResponse },
  send_debug_command: { model: models.DebugPacket },
  list_electrodes: { model: models.Electrode, list: true },
  get_electrode: { model: models.Electrode },
  set_electrode: { model: models.ElectrodeResponse },
  list_sensors: { model: models.Sensor, list: true },
  get_sensor: { model: models.Sensor },
  set_sensor: { model: models.SensorResponse },
  create_config: { model: models.ConfigEntry },
  get_config: { model: models.ConfigEntry },
  list_configs: { model: models.ConfigEntry, list: true },
  update_config: { model: models.ConfigEntry },
  delete_config: { model: models.ConfigResponse },
  'stream.create': { model: models.StreamResponse },
  list_streams: { model: models.Stream, list: true },
  get_stream: { model: models.Stream },
  'stream.start': { model: models.StreamResponse },
  'stream.reconcile': { model: models.StreamResponse },
  'node.create': { model: models.NodeResponse },
  'pipe.create': { model: models.PipeResponse },
  'node.send_signal': { model: models.NodeResponse },
  'pipe.delete': { model: models.PipeResponse },
  'node.delete': { model: models.NodeResponse },
  'stream.send_signal': { model: models.StreamResponse },
  'stream.stop': { model: models.StreamResponse },
  'stream.delete': { model: models.StreamResponse },
  'stream.create (second)': { model: models.StreamResponse },
  delete_stream: { model: models.StreamResponse },
};

test.skipIf(!hasRequests)(
  "the SDK's calls made by python requests all succeed and answer its models",
  () => {
    const script = path.join(import.meta.dirname, '..', 'fixtures', 'instinct', 'sdk_calls.py');
    const run = spawnSync('/usr/bin/python3', [script, service?.url ?? ''], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const results = JSON.parse(run.stdout.trim()) as {
      call: string;
      status?: number;
      body?: unknown;
      error?: string;
    }[];
    expect(results.map((r) => r.call)).toEqual(Object.keys(MODELS));
    const problems = results.flatMap((r) => {
      if (r.error !== undefined) return [`${r.call}: ${r.error}`];
      const spec = MODELS[r.call];
      if (spec === undefined) return [`${r.call}: no model`];
      const found =
        spec.list === true
          ? models.listProblems(spec.model, r.body)
          : models.modelProblems(spec.model, r.body);
      return found.map((p) => `${r.call} ${p}`);
    });
    expect(problems).toEqual([]);
  },
  90_000,
);
