/**
 * Reads EDF/BDF files with MNE-Python (Debian's python3-mne under /usr/bin/python3) and returns
 * what MNE read, as JSON. Python starts slowly: pass several files to one call.
 *
 * Samples are returned in the file's physical units (MNE's volts divided back by the unit scale
 * MNE applied), with stim-channel handling off (`stim_channel=None`) so every channel is scaled
 * like any other.
 */
import { spawnSync } from 'node:child_process';

export interface MneResult {
  path: string;
  ok: boolean;
  error?: string;
  chNames: string[];
  sfreq: number;
  nTimes: number;
  /** Unix seconds of MNE's meas_date, or null. */
  measDate: number | null;
  /** Per channel, samples [0, maxSamples) in the file's physical units. */
  data: number[][];
  /** Per channel, the physical dimension MNE read (its `_orig_units`). */
  units: string[];
  /** Per channel, the factor MNE multiplied the physical values by (1e-6 for `uV`, 1 for a unit it does not know). */
  gains: number[];
  annotations: { onset: number; duration: number; description: string }[];
}

const SCRIPT = String.raw`
import json, sys, warnings
warnings.simplefilter("ignore")
import numpy as np
import mne
mne.set_log_level("ERROR")
paths = json.loads(sys.argv[1]); max_samples = int(sys.argv[2])
out = []
for path in paths:
    try:
        if path.lower().endswith(".bdf"):
            raw = mne.io.read_raw_bdf(path, stim_channel=None, preload=True)
        else:
            raw = mne.io.read_raw_edf(path, stim_channel=None, preload=True)
        gains = np.asarray(raw._raw_extras[0]["units"], dtype=float)
        data = raw.get_data()[:, :max_samples] / gains[:, None]
        md = raw.info["meas_date"]
        out.append({"path": path, "ok": True, "chNames": raw.ch_names, "sfreq": float(raw.info["sfreq"]),
                    "nTimes": int(raw.n_times), "measDate": md.timestamp() if md is not None else None,
                    "data": data.tolist(), "gains": gains.tolist(),
                    "units": [raw._orig_units.get(name, "") for name in raw.ch_names],
                    "annotations": [{"onset": float(a["onset"]), "duration": float(a["duration"]),
                                     "description": str(a["description"])} for a in raw.annotations]})
    except Exception as e:
        out.append({"path": path, "ok": False, "error": repr(e)})
print(json.dumps(out))
`;

/** Reads every file with MNE in one python process. */
export function mneRead(paths: string[], maxSamples = 1 << 30): MneResult[] {
  const run = spawnSync('/usr/bin/python3', ['-c', SCRIPT, JSON.stringify(paths), String(maxSamples)], {
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`MNE check failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as MneResult[];
}

const MONTAGE_SCRIPT = String.raw`
import sys, warnings
warnings.simplefilter("ignore")
import mne
mne.set_log_level("ERROR")
path = sys.argv[1]
raw = mne.io.read_raw_bdf(path) if path.lower().endswith(".bdf") else mne.io.read_raw_edf(path)
raw.set_montage("standard_1020")
print(",".join(ch["ch_name"] for ch in raw.info["chs"] if ch["loc"][:3].any()))
`;

/**
 * Applies MNE's standard 10-20 montage to a recorded file as a user would, case-sensitively
 * (no `match_case=False`): the names of the channels that got a position, or MNE's error.
 */
export function mneStandardMontage(path: string): { ok: boolean; positioned: string[]; error: string } {
  const run = spawnSync('/usr/bin/python3', ['-c', MONTAGE_SCRIPT, path], { encoding: 'utf8' });
  return {
    ok: run.status === 0,
    positioned:
      run.status === 0
        ? run.stdout
            .trim()
            .split(',')
            .filter((c) => c !== '')
        : [],
    error: run.stderr,
  };
}
