"""The anchor of the spectral benchmark: scipy doing the work of headsetd's band-power and resample
nodes on the very samples they process (bench/suites/spectral-vs-scipy.js runs this with Debian's
python3).

argv: DATA (raw float32, frames x channels, sample-major) FRAMES CHANNELS RATE PARAMS_JSON ROUNDS PARITY_DIR
PARAMS_JSON: {"window": N, "step": H, "nperseg": n, "noverlap": o, "bands": [[lo, hi], ...],
              "up": u, "down": d, "parityWindows": k, "parityFrames": m}
Prints JSON: the median CPU seconds of (a) band power of every window of the stream (one
scipy.signal.welch call on all channels per window, then numpy.trapz per band) and (b)
scipy.signal.resample_poly of the whole stream (axis 0, one call); writes the float64 outputs of
the first parityWindows windows and parityFrames input frames to PARITY_DIR for the parity check.
"""
import json
import sys
import time

import numpy as np
from scipy.signal import resample_poly, welch


def cpu_seconds(fn, rounds):
    times = []
    for _ in range(rounds):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return float(np.median(times))


def band_power(x, rate, p, windows):
    planar = np.ascontiguousarray(x.T, dtype=np.float64)
    out = []
    for j in range(windows):
        seg = planar[:, j * p["step"]:j * p["step"] + p["window"]]
        f, psd = welch(seg, fs=rate, window="hann", nperseg=p["nperseg"], noverlap=p["noverlap"], axis=-1)
        values = []
        for lo, hi in p["bands"]:
            m = (f >= lo) & (f <= hi)
            values.append(np.trapz(psd[:, m], f[m], axis=-1))
        out.append(np.stack(values, axis=-1).reshape(-1))
    return out


def main():
    path, frames, channels, rate, params, rounds, parity_dir = sys.argv[1:8]
    frames, channels, rate, rounds = int(frames), int(channels), float(sys.argv[4]), int(rounds)
    p = json.loads(params)
    x = np.fromfile(path, dtype=np.float32, count=frames * channels).reshape(frames, channels)
    windows = (frames - p["window"]) // p["step"] + 1
    band_s = cpu_seconds(lambda: band_power(x, rate, p, windows), rounds)
    xd = x.astype(np.float64)
    resample_s = cpu_seconds(lambda: resample_poly(xd, p["up"], p["down"], axis=0), rounds)
    np.array(band_power(x, rate, p, p["parityWindows"]), dtype=np.float64).tofile(parity_dir + "/bands.f64")
    resample_poly(xd[: p["parityFrames"]], p["up"], p["down"], axis=0).astype(np.float64).tofile(parity_dir + "/resampled.f64")
    print(json.dumps({"bandPowerCpuS": band_s, "resampleCpuS": resample_s}))


main()
