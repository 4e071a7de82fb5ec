/**
 * MNE-Python (Debian's python3-mne under /usr/bin/python3) as the reference of the `reference`
 * and `epoch` built-ins: the test hands it the very samples it fed the node (JSON on stdin), MNE
 * computes, and its answer comes back as JSON. Samples are given in µV and handed to MNE as they
 * are (MNE's arithmetic does not depend on the unit). The test file's one python process
 * (test/support/python.ts) runs the scripts.
 */
import { runPythonScript } from './python.js';

async function runMne(script: string, input: unknown): Promise<unknown> {
  return JSON.parse((await runPythonScript(script, [], JSON.stringify(input))).stdout) as unknown;
}

const PRELUDE = String.raw`
import json, sys, warnings
warnings.simplefilter("ignore")
import numpy as np
import mne
mne.set_log_level("ERROR")
req = json.load(sys.stdin)
def raw_of(req):
    data = np.asarray(req["data"], dtype=np.float64).reshape(-1, len(req["channels"])).T
    info = mne.create_info(req["channels"], req["rate"], "eeg")
    return mne.io.RawArray(data, info)
`;

const REFERENCE = String.raw`
raw = raw_of(req)
if req.get("reference") is not None:
    raw.set_eeg_reference(req["reference"], projection=False)
if req.get("pick") is not None:
    raw.pick(req["pick"])
if req.get("drop") is not None:
    raw.drop_channels(req["drop"])
print(json.dumps({"channels": raw.ch_names, "data": raw.get_data().T.ravel().tolist()}))
`;

export interface MneReferenceRequest {
  channels: readonly string[];
  rate: number;
  /** Row-major samples. */
  data: readonly number[];
  /** MNE's names (exact case): `average` or a list. */
  reference?: 'average' | readonly string[];
  pick?: readonly string[];
  drop?: readonly string[];
}

/** `set_eeg_reference` then `pick` / `drop_channels`: the channels and row-major samples. */
export async function mneReference(
  request: MneReferenceRequest,
): Promise<{ channels: string[]; data: number[] }> {
  return (await runMne(PRELUDE + REFERENCE, request)) as { channels: string[]; data: number[] };
}

const EPOCHS = String.raw`
raw = raw_of(req)
events = np.array([[s, 0, 1] for s in req["events"]], dtype=int).reshape(-1, 3)
baseline = req.get("baseline")
if baseline is not None: baseline = tuple(baseline)
reject = req.get("reject")
epochs = mne.Epochs(raw, events, event_id=1, tmin=req["tmin"], tmax=req["tmax"], baseline=baseline,
                    reject=None if reject is None else dict(eeg=reject), preload=True, proj=False)
kept = [int(i) for i in epochs.selection]
out = {"kept": kept, "times": epochs.times.tolist(),
       "data": [e.T.ravel().tolist() for e in epochs.get_data()],
       "dropLog": [list(d) for d in epochs.drop_log]}
if req.get("evoked") is not None:
    ev = epochs.average()
    out["evoked"] = ev.data.T.ravel().tolist()
print(json.dumps(out))
`;

export interface MneEpochsRequest {
  channels: readonly string[];
  rate: number;
  data: readonly number[];
  /** The events' samples (from the first sample fed, 0). */
  events: readonly number[];
  tmin: number;
  tmax: number;
  baseline: readonly [number | null, number | null] | null;
  /** In the samples' unit (µV here). */
  reject?: number;
  evoked?: boolean;
}

export interface MneEpochs {
  /** Indices (into `events`) of the epochs kept. */
  kept: number[];
  times: number[];
  /** Per kept epoch, row-major samples. */
  data: number[][];
  dropLog: string[][];
  evoked?: number[];
}

/** `mne.Epochs(raw, events, tmin, tmax, baseline, reject)` on the samples. */
export async function mneEpochs(request: MneEpochsRequest): Promise<MneEpochs> {
  return (await runMne(PRELUDE + EPOCHS, request)) as MneEpochs;
}

/** The largest |a − b| over the largest |b| (1 when b is all zeros): the relative error of a to b. */
export function relativeError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Number.POSITIVE_INFINITY;
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs((a[i] as number) - (b[i] as number)));
    scale = Math.max(scale, Math.abs(b[i] as number));
  }
  return diff / (scale === 0 ? 1 : scale);
}
