"""The anchor of the filter benchmark: scipy.signal.sosfilt timed on the very data and sections
headsetd's SosFilter filters (bench/suites/filter-vs-scipy.js runs this with Debian's python3).

argv: DATA (raw float32, frames x channels, sample-major) FRAMES CHANNELS SOS_JSON ROUNDS PARITY_OUT PARITY_FRAMES
Prints JSON: the median CPU seconds of one sosfilt call on the interleaved float32 array
(axis=0, the layout of headsetd's frames) and on a planar float64 copy (axis=-1, scipy's fastest
layout), and writes the float64 output of the first PARITY_FRAMES frames to PARITY_OUT.
"""
import json
import sys
import time

import numpy as np
from scipy.signal import sosfilt


def cpu_seconds(fn, rounds):
    times = []
    for _ in range(rounds):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return float(np.median(times))


def main():
    path, frames, channels, sos_json, rounds, parity_out, parity_frames = sys.argv[1:8]
    frames, channels, rounds, parity_frames = int(frames), int(channels), int(rounds), int(parity_frames)
    sos = np.array(json.loads(sos_json), dtype=np.float64).reshape(-1, 6)
    x = np.fromfile(path, dtype=np.float32, count=frames * channels).reshape(frames, channels)
    planar = np.ascontiguousarray(x.T, dtype=np.float64)
    interleaved_s = cpu_seconds(lambda: sosfilt(sos, x, axis=0), rounds)
    planar_s = cpu_seconds(lambda: sosfilt(sos, planar, axis=-1), rounds)
    sosfilt(sos, x[:parity_frames].astype(np.float64), axis=0).astype(np.float64).tofile(parity_out)
    print(json.dumps({"interleavedCpuS": interleaved_s, "planarCpuS": planar_s}))


main()
