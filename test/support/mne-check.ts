/**
 * Reads EDF/BDF files with MNE-Python (Debian's python3-mne under /usr/bin/python3) and returns
 * what MNE read, as JSON (test/support/python.ts runs it).
 *
 * Samples are returned in the file's physical units (MNE's volts divided back by the unit scale
 * MNE applied), with stim-channel handling off (`stim_channel=None`) so every channel is scaled
 * like any other.
 */
import { callPython, PythonError, pythonSource, runPython } from './python.js';

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

const MNE = pythonSource(
  'mne_check',
  String.raw`
import warnings
import numpy as np
import mne
mne.set_log_level("ERROR")

def read(paths, max_samples):
    warnings.simplefilter("ignore")
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
    return out

def standard_montage(path):
    warnings.simplefilter("ignore")
    raw = mne.io.read_raw_bdf(path) if path.lower().endswith(".bdf") else mne.io.read_raw_edf(path)
    raw.set_montage("standard_1020")
    return [ch["ch_name"] for ch in raw.info["chs"] if ch["loc"][:3].any()]
`,
);

/** Reads every file with MNE (in the test file's one python process). */
export function mneRead(paths: string[], maxSamples = 1 << 30): Promise<MneResult[]> {
  return callPython<MneResult[]>(MNE, 'read', paths, maxSamples);
}

/**
 * Applies MNE's standard 10-20 montage to a recorded file as a user would, case-sensitively
 * (no `match_case=False`): the names of the channels that got a position, or MNE's error.
 */
export async function mneStandardMontage(
  path: string,
): Promise<{ ok: boolean; positioned: string[]; error: string }> {
  try {
    const { value, stderr } = await runPython<string[]>(MNE, 'standard_montage', path);
    return { ok: true, positioned: value, error: stderr };
  } catch (error) {
    if (!(error instanceof PythonError)) throw error;
    return { ok: false, positioned: [], error: error.traceback };
  }
}
