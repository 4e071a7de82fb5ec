"""headsetd_node: write headsetd stream nodes in Python (standard library only, Python 3.9+).

    from headsetd_node import Node

    node = Node()

    @node.on_data
    def handle(port, frame):
        node.send('out', frame.like([[2 * v for v in row] for row in frame.data]))

    node.run()

headsetd starts the script with PYTHONPATH pointing at this file's directory (or copy this one
file next to your script). The node speaks the protocol of docs/node-protocol.md on stdin and
stdout in the encoding headsetd chose (HEADSETD_PROTOCOL: ndjson or binary). stdout belongs to the
protocol: log with print(..., file=sys.stderr). The process exits when headsetd sends `stop` or
closes stdin, so a node never outlives the service.
"""

from __future__ import annotations

import json
import math
import os
import struct
import sys
import threading
import time
import traceback
from array import array
from typing import Any, BinaryIO, Callable, Dict, List, Mapping, Optional, Sequence, Union

PROTOCOL_VERSION = 1
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
BINARY_TYPES = {'config': 1, 'frame': 2, 'signal': 3, 'ready': 4, 'error': 5, 'info': 6}
_TYPE_NAMES = {code: name for name, code in BINARY_TYPES.items()}
_FLAG_DISCONTINUITY = 0x01
_FLAG_UNITS = 0x02


class ProtocolError(Exception):
    """A message that breaks the node protocol."""


class Frame:
    """A block of samples: `data` is a list of rows, `data[i][c]` sample i of channel c.

    `units` is None when every channel is in µV, else one unit per channel ('µV²', 'dB', '1'...).
    """

    __slots__ = ('seq', 'timestamp', 'sample_rate', 'channels', 'data', 'discontinuity', 'units')

    def __init__(self, channels: Sequence[str], data: Sequence[Sequence[float]], sample_rate: float,
                 timestamp: Optional[float] = None, seq: Optional[int] = None, discontinuity: bool = False,
                 units: Optional[Sequence[str]] = None):
        self.channels = list(channels)
        if units is not None and len(units) != len(self.channels):
            raise ValueError(f'units has {len(units)} entries for {len(self.channels)} channels')
        self.units = None if units is None else [str(u) for u in units]
        self.data = [list(row) for row in data]
        self.sample_rate = float(sample_rate)
        self.timestamp = timestamp
        self.seq = seq
        self.discontinuity = discontinuity

    @property
    def samples(self) -> int:
        return len(self.data)

    def unit(self, c: int) -> str:
        """The unit of channel `c` (µV when the frame has no units)."""
        return 'µV' if self.units is None else self.units[c]

    def column(self, c: int) -> List[float]:
        """The samples of channel `c`."""
        return [row[c] for row in self.data]

    def like(self, data: Sequence[Sequence[float]], **overrides: Any) -> 'Frame':
        """A new frame with this frame's channels, rate and timestamp, and new rows."""
        fields = dict(channels=self.channels, sample_rate=self.sample_rate, timestamp=self.timestamp,
                      discontinuity=self.discontinuity, units=self.units)
        fields.update(overrides)
        return Frame(data=data, **fields)

    def __repr__(self) -> str:
        return (f'Frame(seq={self.seq}, samples={self.samples}, channels={self.channels}, '
                f'sample_rate={self.sample_rate})')


# ---- codecs -------------------------------------------------------------------------------

def _json_sample(value: float) -> Union[float, str]:
    # JSON has no NaN or infinity: the strings "NaN", "Infinity" and "-Infinity" stand for them,
    # as in headsetd's own encoder (float() reads them back).
    if math.isfinite(value):
        return value
    return 'NaN' if math.isnan(value) else ('Infinity' if value > 0 else '-Infinity')


def _frame_to_json(port: str, frame: Frame) -> Dict[str, Any]:
    message = {'type': 'frame', 'port': port, 'seq': frame.seq, 'timestamp': frame.timestamp,
               'sampleRate': frame.sample_rate, 'channels': frame.channels,
               'data': [[_json_sample(float(v)) for v in row] for row in frame.data]}
    if frame.units is not None:
        message['units'] = frame.units
    if frame.discontinuity:
        message['discontinuity'] = True
    return message


def _frame_from_json(message: Mapping[str, Any]) -> Frame:
    channels = message.get('channels')
    rows = message.get('data')
    if not isinstance(channels, list) or not isinstance(rows, list):
        raise ProtocolError('a frame needs channels and data')
    data = [[float('nan') if v is None else float(v) for v in row] for row in rows]
    return Frame(channels, data, message['sampleRate'], message['timestamp'], message['seq'],
                 bool(message.get('discontinuity', False)), message.get('units'))


def _pack_text(text: str) -> bytes:
    raw = text.encode('utf-8')
    return struct.pack('<H', len(raw)) + raw


def _encode_binary_frame(port: str, frame: Frame) -> bytes:
    samples = array('f', [float(v) for row in frame.data for v in row])
    if sys.byteorder == 'big':
        samples.byteswap()
    flags = (_FLAG_DISCONTINUITY if frame.discontinuity else 0) | (_FLAG_UNITS if frame.units is not None else 0)
    header = [struct.pack('<BB', BINARY_TYPES['frame'], flags),
              _pack_text(port), struct.pack('<Qdd', frame.seq, frame.timestamp, frame.sample_rate),
              struct.pack('<H', len(frame.channels))]
    header.extend(_pack_text(name) for name in frame.channels)
    header.extend(_pack_text(unit) for unit in frame.units or [])
    header.append(struct.pack('<I', len(frame.data)))
    body = b''.join(header) + samples.tobytes()
    return struct.pack('<I', len(body)) + body


def _decode_binary_frame(body: bytes) -> Dict[str, Any]:
    at = 0

    def take(n: int) -> bytes:
        nonlocal at
        if at + n > len(body):
            raise ProtocolError('a binary frame message is truncated')
        chunk = body[at:at + n]
        at += n
        return chunk

    def text() -> str:
        (length,) = struct.unpack('<H', take(2))
        return take(length).decode('utf-8')

    (flags,) = struct.unpack('<B', take(1))
    port = text()
    seq, timestamp, sample_rate = struct.unpack('<Qdd', take(24))
    (width,) = struct.unpack('<H', take(2))
    channels = [text() for _ in range(width)]
    units = [text() for _ in range(width)] if flags & _FLAG_UNITS else None
    (rows,) = struct.unpack('<I', take(4))
    raw = body[at:]
    if len(raw) != rows * width * 4:
        raise ProtocolError(f'{len(raw)} sample bytes for {rows} samples of {width} channels')
    samples = array('f')
    samples.frombytes(raw)
    if sys.byteorder == 'big':
        samples.byteswap()
    data = [samples[i * width:(i + 1) * width].tolist() for i in range(rows)]
    frame = Frame(channels, data, sample_rate, timestamp, seq, bool(flags & _FLAG_DISCONTINUITY), units)
    return {'type': 'frame', 'port': port, 'frame': frame}


class _Wire:
    """Reads and writes protocol messages in one encoding. Frames travel as {'type','port','frame'}."""

    def __init__(self, encoding: str, stdin: BinaryIO, stdout: BinaryIO):
        if encoding not in ('ndjson', 'binary'):
            raise ProtocolError(f'unknown encoding {encoding!r}')
        self.encoding = encoding
        self.stdin = stdin
        self.stdout = stdout
        # Re-entrant: Node.send holds it across numbering and writing, so seq order is wire order.
        self.lock = threading.RLock()

    def read(self) -> Optional[Dict[str, Any]]:
        """The next message, or None at EOF."""
        return self._read_binary() if self.encoding == 'binary' else self._read_line()

    def _read_line(self) -> Optional[Dict[str, Any]]:
        while True:
            line = self.stdin.readline(MAX_MESSAGE_BYTES + 2)
            if not line:
                return None
            if len(line) > MAX_MESSAGE_BYTES + 1 and not line.endswith(b'\n'):
                raise ProtocolError(f'a line longer than {MAX_MESSAGE_BYTES} bytes was refused')
            if line.strip():
                break
        message = json.loads(line.decode('utf-8'))
        if not isinstance(message, dict):
            raise ProtocolError('a message must be a JSON object')
        if message.get('type') == 'frame':
            return {'type': 'frame', 'port': message['port'], 'frame': _frame_from_json(message)}
        return message

    def _read_exactly(self, n: int) -> Optional[bytes]:
        data = self.stdin.read(n)
        if not data:
            return None
        while len(data) < n:
            more = self.stdin.read(n - len(data))
            if not more:
                raise ProtocolError('stdin ended inside a message')
            data += more
        return data

    def _read_binary(self) -> Optional[Dict[str, Any]]:
        prefix = self._read_exactly(4)
        if prefix is None:
            return None
        (length,) = struct.unpack('<I', prefix)
        if length == 0 or length > MAX_MESSAGE_BYTES:
            raise ProtocolError(f'a message of {length} bytes was refused')
        body = self._read_exactly(length)
        if body is None:
            raise ProtocolError('stdin ended inside a message')
        name = _TYPE_NAMES.get(body[0])
        if name is None:
            raise ProtocolError(f'unknown binary message type {body[0]}')
        if name == 'frame':
            return _decode_binary_frame(body[1:])
        message = json.loads(body[1:].decode('utf-8'))
        message['type'] = name
        return message

    def write(self, message: Dict[str, Any]) -> None:
        if message['type'] == 'frame':
            frame = message['frame']
            if self.encoding == 'binary':
                raw = _encode_binary_frame(message['port'], frame)
            else:
                raw = (json.dumps(_frame_to_json(message['port'], frame), separators=(',', ':'))
                       + '\n').encode('utf-8')
        else:
            text = json.dumps(message, separators=(',', ':'))
            if self.encoding == 'binary':
                body = bytes([BINARY_TYPES[message['type']]]) + text.encode('utf-8')
                raw = struct.pack('<I', len(body)) + body
            else:
                raw = (text + '\n').encode('utf-8')
        with self.lock:
            self.stdout.write(raw)
            self.stdout.flush()


# ---- the node -----------------------------------------------------------------------------

Handler = Callable[..., Any]


class Node:
    """A headsetd node: register handlers with the decorators, then call run()."""

    def __init__(self, inputs: Optional[List[str]] = None, outputs: Optional[List[str]] = None,
                 stdin: Optional[BinaryIO] = None, stdout: Optional[BinaryIO] = None,
                 env: Optional[Mapping[str, str]] = None):
        env = os.environ if env is None else env
        self.config: Dict[str, Any] = {}
        self.stream_id = env.get('HEADSETD_STREAM_ID', '')
        self.node_id = env.get('HEADSETD_NODE_ID', '')
        self.encoding = env.get('HEADSETD_PROTOCOL', 'ndjson')
        self.inputs = inputs
        self.outputs = outputs
        self.paused = False
        self._wire = _Wire(self.encoding, stdin or sys.stdin.buffer, stdout or sys.stdout.buffer)
        self._next_seq: Dict[str, int] = {}
        self._after_gap: set = set()
        self._handlers: Dict[str, Handler] = {}

    # Decorators: each stores the handler and returns it unchanged.
    def on_start(self, handler: Handler) -> Handler:
        """handler(config) runs once the config arrived, before `ready` is announced."""
        self._handlers['start'] = handler
        return handler

    def on_data(self, handler: Handler) -> Handler:
        """handler(port, frame) runs for each frame, one at a time, in order."""
        self._handlers['data'] = handler
        return handler

    def on_signal(self, handler: Handler) -> Handler:
        """handler(name, payload): pause, resume and custom signals (marker with {'text'}, ...)."""
        self._handlers['signal'] = handler
        return handler

    def on_stop(self, handler: Handler) -> Handler:
        """handler() runs before the process exits on `stop` or EOF."""
        self._handlers['stop'] = handler
        return handler

    def send(self, port: str, frame: Any) -> None:
        """Sends a Frame (or a dict with channels, data, sample_rate/sampleRate) on an output port.

        `seq` defaults to the port's next number, `timestamp` to now; the first frame after a
        resume is marked as a discontinuity. Safe to call from any thread.
        """
        if isinstance(frame, Mapping):
            frame = Frame(frame['channels'], frame['data'], frame.get('sample_rate', frame.get('sampleRate')),
                          frame.get('timestamp'), frame.get('seq'), bool(frame.get('discontinuity', False)),
                          frame.get('units'))
        with self._wire.lock:
            seq = frame.seq if frame.seq is not None else self._next_seq.get(port, 0)
            self._next_seq[port] = seq + 1
            gap = port in self._after_gap
            self._after_gap.discard(port)
            out = Frame(frame.channels, frame.data, frame.sample_rate,
                        frame.timestamp if frame.timestamp is not None else time.time() * 1000.0,
                        seq, frame.discontinuity or gap, frame.units)
            self._wire.write({'type': 'frame', 'port': port, 'frame': out})

    def info(self, **fields: Any) -> None:
        """Fields shown in the node's status."""
        self._wire.write({'type': 'info', 'info': fields})

    def fail(self, message: str) -> None:
        """Reports a failure (headsetd restarts the node per its restart policy) and exits."""
        self._wire.write({'type': 'error', 'message': message})
        self._exit(1)

    def run(self) -> None:
        """Serves messages until `stop` or EOF, then exits the process (even if threads remain)."""
        try:
            while True:
                message = self._wire.read()
                if message is None or (message.get('type') == 'signal' and message.get('name') == 'stop'):
                    break
                self._dispatch(message)
            if 'stop' in self._handlers:
                self._handlers['stop']()
        except Exception as error:  # noqa: BLE001 - any failure of the node is reported, then it exits
            traceback.print_exc(file=sys.stderr)
            try:
                self.fail(f'{type(error).__name__}: {error}')
            except OSError:
                self._exit(1)
        self._exit(0)

    def _dispatch(self, message: Dict[str, Any]) -> None:
        kind = message.get('type')
        if kind == 'config':
            self.config = dict(message.get('config') or {})
            self.stream_id = message.get('streamId', self.stream_id)
            self.node_id = message.get('nodeId', self.node_id)
            if 'start' in self._handlers:
                self._handlers['start'](self.config)
            ready: Dict[str, Any] = {'type': 'ready'}
            if self.inputs is not None:
                ready['inputs'] = self.inputs
            if self.outputs is not None:
                ready['outputs'] = self.outputs
            self._wire.write(ready)
        elif kind == 'frame':
            if 'data' in self._handlers:
                self._handlers['data'](message['port'], message['frame'])
        elif kind == 'signal':
            name = message.get('name', '')
            if name == 'pause':
                self.paused = True
            elif name == 'resume':
                self.paused = False
                with self._wire.lock:
                    self._after_gap.update(self._next_seq.keys())
            if 'signal' in self._handlers:
                self._handlers['signal'](name, message.get('payload') or {})
        else:
            raise ProtocolError(f'unexpected message type {kind!r}')

    def _exit(self, code: int) -> None:
        # os._exit: a node must not linger because some thread of the user is still running.
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
