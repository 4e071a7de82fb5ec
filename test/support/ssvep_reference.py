"""SSVEP scores computed by scipy and scikit-learn: the independent reference of the ssvep node.

scores(job, samples) answers a job (test/support/ssvep-reference.ts calls it in the tests' python
process); run as a script, it reads the job as JSON on stdin, with "data" the path of the samples'
float32 file, and writes the answer on stdout.
A job: {"rate", the samples (float32, rows x width, row-major), "width",
"columns" (the channels used), "length" and "step" (samples), "starts" (optional window starts),
"frequencies", "harmonics", "method" ("cca" | "fbcca"), "subBands"}. The answer:
{"scores": [[score per frequency] per window], "seconds": CPU time of the scoring}.

cca: the first canonical correlation of sklearn.cross_decomposition.CCA(n_components=1) between
the window's channels and [sin, cos](2 pi h f t), h = 1..harmonics below Nyquist: the correlation
of the two first canonical variates. fbcca: every sub-band filtered over the whole input by
scipy.signal.sosfilt(butter(4, [8n-2, min(90, 0.8 * Nyquist)], 'bandpass', fs=rate,
output='sos')) (or, with "filterEachWindow", each window filtered alone from a zero state, as the
node filters a segment that follows a discontinuity), then sum_n w(n) rho_n^2 / sum_n w(n), w(n) = n^-1.25 + 0.25 (Chen et al. 2015).
"""
import json
import sys
import time
import warnings

import numpy as np
from scipy.signal import butter, sosfilt
from sklearn.cross_decomposition import CCA

warnings.filterwarnings("ignore")


SKLEARN_DEFAULTS = False


def first_correlation(x, y):
    # Tight tolerance: sklearn's iterations converge slowly when the two first correlations are close.
    # The benchmark ("sklearnDefaults") times CCA as a user would call it, with its defaults.
    cca = CCA(n_components=1) if SKLEARN_DEFAULTS else CCA(n_components=1, max_iter=20000, tol=1e-13)
    u, v = cca.fit(x, y).transform(x, y)
    return abs(float(np.corrcoef(u[:, 0], v[:, 0])[0, 1]))


def references(frequencies, harmonics, rate, n):
    t = np.arange(n) / rate
    refs = []
    for f in frequencies:
        cols = []
        for h in range(1, harmonics + 1):
            if h * f >= rate / 2:
                break
            cols += [np.sin(2 * np.pi * h * f * t), np.cos(2 * np.pi * h * f * t)]
        refs.append(np.stack(cols, axis=1))
    return refs


def scores(job, samples):
    global SKLEARN_DEFAULTS
    warnings.filterwarnings("ignore")
    SKLEARN_DEFAULTS = job.get("sklearnDefaults", False)
    rate = job["rate"]
    data = np.asarray(samples, dtype=np.float32).astype(np.float64).reshape(-1, job["width"])
    data = data[:, job["columns"]]
    n, step = job["length"], job["step"]
    starts = job.get("starts") or list(range(0, data.shape[0] - n + 1, step))
    refs = references(job["frequencies"], job["harmonics"], rate, n)
    began = time.process_time()
    if job["method"] == "fbcca":
        high = min(90.0, 0.8 * rate / 2)
        bands = []
        for k in range(1, job["subBands"] + 1):
            low = 8 * k - 2
            if low >= high:
                break
            bands.append((k ** -1.25 + 0.25, butter(4, [low, high], "bandpass", fs=rate, output="sos")))
        total = sum(w for w, _ in bands)
        alone = job.get("filterEachWindow", False)
        whole = None if alone else [sosfilt(sos, data, axis=0) for _, sos in bands]

        def window(b, s):
            return sosfilt(bands[b][1], data[s : s + n], axis=0) if alone else whole[b][s : s + n]

        scores = []
        for s in starts:
            filtered = [window(b, s) for b in range(len(bands))]
            scores.append(
                [sum(w * first_correlation(x, y) ** 2 for (w, _), x in zip(bands, filtered)) / total for y in refs]
            )
    else:
        scores = [[first_correlation(data[s : s + n], y) for y in refs] for s in starts]
    return {"scores": scores, "seconds": time.process_time() - began}


def main():
    job = json.load(sys.stdin)
    json.dump(scores(job, np.fromfile(job["data"], dtype=np.float32)), sys.stdout)


if __name__ == "__main__":
    main()
