#!/usr/bin/env python3
"""Band power: alpha (8-12 Hz) power per channel over a sliding window.

For each input frame, once the window is full, it sends one row: per channel, the sum of the
one-sided periodogram over the DFT bins within [low, high] Hz of the last `windowSeconds` of
samples (rectangular window). By Parseval that is the mean square of the signal's content in the
band, in input units squared: a sine of amplitude A at 10 Hz gives A^2/2.

Config: windowSeconds (default 1), low (Hz, default 8), high (Hz, default 12).
Output: same channels, one sample per input frame (sampleRate = input rate / frame length).
"""
import math
import sys
from collections import deque

from headsetd_node import Node

node = Node(inputs=['in'], outputs=['out'])
settings = {'windowSeconds': 1.0, 'low': 8.0, 'high': 12.0}
state = {}  # per port: {'rate', 'width', 'size', 'buffers', 'bins'}


@node.on_start
def start(config):
    for key in settings:
        if key in config:
            settings[key] = float(config[key])
    if not 0 < settings['low'] < settings['high']:
        raise ValueError('need 0 < low < high')
    print(f"band power {settings['low']}-{settings['high']} Hz over {settings['windowSeconds']} s",
          file=sys.stderr)


def prepare(port, frame):
    """(Re)builds the window and DFT tables when a port's rate or channels change."""
    current = state.get(port)
    if current and current['rate'] == frame.sample_rate and current['width'] == len(frame.channels):
        return current
    size = max(2, round(settings['windowSeconds'] * frame.sample_rate))
    bins = []
    for k in range(1, size // 2 + 1):
        if settings['low'] <= k * frame.sample_rate / size <= settings['high']:
            angle = [2 * math.pi * k * n / size for n in range(size)]
            # One-sided: bins below Nyquist count twice; the Nyquist bin once.
            weight = (1.0 if 2 * k == size else 2.0) / (size * size)
            bins.append(([math.cos(a) for a in angle], [math.sin(a) for a in angle], weight))
    current = {'rate': frame.sample_rate, 'width': len(frame.channels), 'size': size,
               'buffers': [deque(maxlen=size) for _ in frame.channels], 'bins': bins}
    state[port] = current
    return current


def power(samples, bins):
    total = 0.0
    for cos_table, sin_table, weight in bins:
        re = sum(x * c for x, c in zip(samples, cos_table))
        im = sum(x * s for x, s in zip(samples, sin_table))
        total += weight * (re * re + im * im)
    return total


@node.on_data
def on_data(port, frame):
    current = prepare(port, frame)
    for row in frame.data:
        for c, value in enumerate(row):
            current['buffers'][c].append(value)
    if len(current['buffers'][0]) < current['size'] or frame.samples == 0:
        return
    row = [power(list(buffer), current['bins']) for buffer in current['buffers']]
    node.send('out', frame.like([row], sample_rate=frame.sample_rate / frame.samples))


@node.on_signal
def on_signal(name, payload):
    print(f'signal {name} {payload}', file=sys.stderr)


node.run()
