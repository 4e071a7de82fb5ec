#!/usr/bin/env python3
"""Moving average: each output sample is the mean of the last `window` input samples of its channel
(fewer at the very start), carried across frames. Same channels, rate and timestamps as the input.

Config: window (samples, default 5).
"""
import sys
from collections import deque

from headsetd_node import Node

node = Node(inputs=['in'], outputs=['out'])
settings = {'window': 5}
history = {}  # per port: one deque of the last `window` samples per channel


@node.on_start
def start(config):
    window = config.get('window', 5)
    if not isinstance(window, int) or window < 1:
        raise ValueError(f"'window' must be a positive integer, not {window!r}")
    settings['window'] = window
    print(f'moving average over {window} samples', file=sys.stderr)


@node.on_data
def on_data(port, frame):
    rings = history.get(port)
    if rings is None or len(rings) != len(frame.channels):
        rings = [deque(maxlen=settings['window']) for _ in frame.channels]
        history[port] = rings
    out = []
    for row in frame.data:
        averaged = []
        for ring, value in zip(rings, row):
            ring.append(value)
            averaged.append(sum(ring) / len(ring))
        out.append(averaged)
    node.send('out', frame.like(out))


@node.on_signal
def on_signal(name, payload):
    print(f'signal {name} {payload}', file=sys.stderr)


node.run()
