/**
 * Outputs: the `websocket` nodes of the running streams, and the frames of the one picked, read
 * from its own port as any client reads them (ws://<this page's host>:<port>/, the token as
 * `?token=` when one is set). Derived outputs are drawn by what their channels' names say
 * (outputs.ts): band power as bars per channel grouped by band, SSVEP scores as bars per
 * frequency with the top one marked and the detected frequency large, anything else as a table of
 * the latest values; each with its unit (`units`, µV when the frame names none).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describe, socketUrl } from '../api';
import type { StreamDocument, StreamStatus, StreamSummary } from '../api-types';
import { usePoll } from '../live';
import {
  bandGroups,
  formatValue,
  latestReadings,
  type OutputFrame,
  outputKind,
  type Reading,
  ssvepView,
  unitSuffix,
} from '../outputs';

/** The `websocket` built-in's names (its aliases, any case). */
const WEBSOCKET = new Set(['websocket', 'websocketoutput']);
/** Detections kept in the list, newest first. */
const KEPT_DETECTIONS = 10;
/** Wait before opening the socket again after it closed. */
const RECONNECT_MS = 1000;

interface Output {
  key: string;
  streamId: string;
  streamName: string;
  nodeId: string;
  port: number;
  host: string;
  format: string;
}

async function streamOutputs(stream: StreamSummary): Promise<Output[]> {
  const [definition, status] = await Promise.all([
    api<{ stream: StreamDocument }>(`/stream/streams/${stream.id}`),
    api<{ status: StreamStatus }>(`/stream/streams/${stream.id}/status`),
  ]);
  const sockets = new Set(
    definition.stream.nodes.filter((n) => WEBSOCKET.has(n.executable.toLowerCase())).map((n) => n.id),
  );
  return status.status.nodes.flatMap((n) =>
    sockets.has(n.id) && n.port !== undefined
      ? [
          {
            key: `${stream.id}/${n.id}`,
            streamId: stream.id,
            streamName: stream.meta.name ?? stream.id.slice(0, 8),
            nodeId: n.id,
            port: n.port,
            host: n.host ?? '127.0.0.1',
            format: n.format ?? 'json',
          },
        ]
      : [],
  );
}

async function loadOutputs(): Promise<Output[]> {
  const { streams } = await api<{ streams: StreamSummary[] }>('/stream/streams');
  const running = streams.filter((s) => s.state === 'running' || s.state === 'paused');
  // A stream deleted between the list and its status is left out, not an error of the panel.
  const lists = await Promise.all(running.map((s) => streamOutputs(s).catch(() => [])));
  return lists.flat();
}

const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);

/** Why this page cannot read the node, or undefined when it can. */
function unreachable(output: Output): string | undefined {
  if (output.format !== 'json')
    return `This node sends the ${output.format} format; the panel reads the json format (config format: json).`;
  if (isLoopback(output.host) && !isLoopback(location.hostname))
    return `This node listens on ${output.host} only, so it cannot be reached from another machine: set its config's host (for example 0.0.0.0) to read it here.`;
  return undefined;
}

interface Detection {
  timestamp: number;
  text: string;
}

/** The node's frames: the latest one (rendered at most once per display frame) and its annotations. */
function useFrames(output: Output): {
  frame: OutputFrame | undefined;
  detections: Detection[];
  state: string;
} {
  const [frame, setFrame] = useState<OutputFrame | undefined>(undefined);
  const [detections, setDetections] = useState<Detection[]>([]);
  const [state, setState] = useState('connecting');
  const latest = useRef<OutputFrame | undefined>(undefined);
  useEffect(() => {
    let live = true;
    let socket: WebSocket | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let drawn = 0;
    const draw = (): void => {
      drawn = 0;
      if (live) setFrame(latest.current);
    };
    const open = (): void => {
      const ws = new WebSocket(socketUrl('/', output.port));
      socket = ws;
      let opened = false;
      ws.onopen = () => {
        opened = true;
        setState('connected');
      };
      ws.onmessage = (message) => {
        if (typeof message.data !== 'string') return;
        let parsed: OutputFrame;
        try {
          parsed = JSON.parse(message.data) as OutputFrame;
        } catch {
          return;
        }
        latest.current = parsed;
        const text = parsed.annotation;
        if (text !== undefined && text !== '') {
          setDetections((d) => [{ timestamp: parsed.timestamp, text }, ...d].slice(0, KEPT_DETECTIONS));
        }
        // Frames may come faster than the display: only the newest is drawn, once per display frame.
        if (drawn === 0) drawn = requestAnimationFrame(draw);
      };
      ws.onclose = (event) => {
        if (!live) return;
        // A browser tells a page nothing of a refused connection (the console shows the status).
        setState(
          !opened
            ? `cannot connect (the node listens on ${output.host}, port ${output.port}); retrying`
            : event.code === 1001
              ? `closed: ${event.reason || 'the node stopped'}; reconnecting`
              : `closed (${event.code}); reconnecting`,
        );
        retry = setTimeout(open, RECONNECT_MS);
      };
    };
    open();
    return () => {
      live = false;
      if (retry !== undefined) clearTimeout(retry);
      if (drawn !== 0) cancelAnimationFrame(drawn);
      socket?.close();
    };
  }, [output.key, output.port]);
  return { frame, detections, state };
}

function Bar({
  reading,
  label,
  scale,
  top,
}: {
  reading: Reading;
  label: string;
  scale: number;
  top?: boolean;
}) {
  const share =
    scale > 0 && Number.isFinite(reading.value) ? Math.min(1, Math.abs(reading.value) / scale) : 0;
  return (
    <>
      <span class="bar-label">{label}</span>
      <div class={`bar ${top === true ? 'top' : ''}`} data-channel={reading.channel} data-top={top === true}>
        <div class={reading.value < 0 ? 'negative' : ''} style={{ width: `${(share * 100).toFixed(1)}%` }} />
      </div>
      <span class="bar-value" data-testid="output-value" data-channel={reading.channel}>
        {formatValue(reading.value)}
        <small>{unitSuffix(reading.unit)}</small>
        {top === true && <span class="badge ok">top</span>}
      </span>
    </>
  );
}

const largest = (readings: readonly Reading[]): number =>
  Math.max(0, ...readings.map((r) => (Number.isFinite(r.value) ? Math.abs(r.value) : 0)));

/**
 * One scale per unit across the frame, so that bands compare (alpha against beta at O1); a ratio
 * or a score (unit `1`) on 0 to 1 at least.
 */
function scaleOf(readings: readonly Reading[], unit: string): number {
  const same = largest(readings.filter((r) => r.unit === unit));
  return unit === '1' ? Math.max(1, same) : same;
}

function BandPower({ readings }: { readings: Reading[] }) {
  return (
    <div class="band-groups">
      {bandGroups(readings).map((group) => {
        const units = [...new Set(group.bars.map((b) => b.unit))];
        return (
          <section key={group.band} class="band-group" data-band={group.band}>
            <h3>
              {group.band} <small class="muted">{units.join(', ')}</small>
            </h3>
            <div class="bars">
              {group.bars.map((bar) => (
                <Bar
                  key={bar.channel}
                  reading={{ ...bar, channel: `${bar.channel}.${group.band}` }}
                  label={bar.channel}
                  scale={scaleOf(readings, bar.unit)}
                />
              ))}
            </div>
          </section>
        );
      })}
    </div>
  );
}

function Ssvep({ readings, detections }: { readings: Reading[]; detections: Detection[] }) {
  const view = ssvepView(readings);
  const scale = scaleOf(
    view.scores.map((s) => ({ channel: s.label, value: s.value, unit: '1' })),
    '1',
  );
  return (
    <div class="ssvep">
      <div>
        <h3>Scores</h3>
        <div class="bars">
          {view.scores.map((s, i) => (
            <Bar
              key={s.label}
              reading={{ channel: `score.${s.label}`, value: s.value, unit: '1' }}
              label={s.label}
              scale={scale}
              top={i === view.top}
            />
          ))}
        </div>
      </div>
      <div>
        <h3>Detected</h3>
        <p class="big" data-testid="ssvep-detected">
          {view.detected === undefined ? 'none' : `${formatValue(view.detected)} Hz`}
        </p>
        <h3>Last detections</h3>
        <ol class="events" data-testid="ssvep-detections">
          {detections.length === 0 && <li class="muted">None yet.</li>}
          {detections.map((d) => (
            <li key={`${d.timestamp}-${d.text}`}>
              <time>{new Date(d.timestamp).toLocaleTimeString()}</time> {d.text}
            </li>
          ))}
        </ol>
      </div>
    </div>
  );
}

function Table({ readings }: { readings: Reading[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th>Channel</th>
          <th>Latest value</th>
          <th>Unit</th>
        </tr>
      </thead>
      <tbody>
        {readings.map((r) => (
          <tr key={r.channel} data-channel={r.channel}>
            <td>{r.channel}</td>
            <td data-testid="output-value" data-channel={r.channel}>
              {formatValue(r.value)}
            </td>
            <td>{r.unit}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const KIND_TITLES = { 'band-power': 'Band power', ssvep: 'SSVEP', table: 'Latest values' } as const;

function Live({ output }: { output: Output }) {
  const { frame, detections, state } = useFrames(output);
  const readings = frame === undefined ? [] : latestReadings(frame);
  const kind = frame === undefined ? undefined : outputKind(frame.channels);
  return (
    <>
      <p class="muted">
        <code>{socketUrl('/', output.port).replace(/\?token=.*/, '')}</code> ·{' '}
        <span data-testid="output-state">{state}</span>
        {frame !== undefined && (
          <>
            {' '}
            · frame {frame.seq} · {frame.channels.length} channels · {formatValue(frame.sampleRate)} Hz
          </>
        )}
      </p>
      {frame === undefined || kind === undefined ? (
        <p class="muted">Waiting for a frame.</p>
      ) : (
        <div data-testid="output-view" data-kind={kind} data-seq={frame.seq}>
          <h3 class="kind">{KIND_TITLES[kind]}</h3>
          {kind === 'band-power' && <BandPower readings={readings} />}
          {kind === 'ssvep' && <Ssvep readings={readings} detections={detections} />}
          {kind === 'table' && <Table readings={readings} />}
        </div>
      )}
    </>
  );
}

export function OutputsPanel() {
  const outputs = usePoll(loadOutputs, 2000);
  const [picked, setPicked] = useState<string | undefined>(undefined);
  const list = outputs.value ?? [];
  const output = list.find((o) => o.key === picked);
  const why = output === undefined ? undefined : unreachable(output);
  return (
    <div class="streams">
      <aside class="stream-list">
        <h2>Outputs</h2>
        {outputs.error !== undefined && <p class="error">{describe(outputs.error)}</p>}
        {outputs.value !== undefined && list.length === 0 && (
          <p class="muted">No running stream has a websocket node.</p>
        )}
        <ul class="plain" data-testid="output-list">
          {list.map((o) => (
            <li key={o.key}>
              <button
                type="button"
                class={`link ${picked === o.key ? 'active' : ''}`}
                data-output={o.key}
                onClick={() => {
                  setPicked(o.key);
                }}
              >
                {o.nodeId} <small>port {o.port}</small>
                <br />
                <small class="muted">{o.streamName}</small>
              </button>
            </li>
          ))}
        </ul>
      </aside>
      <div class="cards">
        <section class="card span2">
          {output === undefined ? (
            <p class="muted">Pick a websocket node to see its frames.</p>
          ) : (
            <>
              <h2>
                {output.nodeId} <small class="muted">{output.streamName}</small>
              </h2>
              {why === undefined ? <Live key={output.key} output={output} /> : <p class="warning">{why}</p>}
            </>
          )}
        </section>
      </div>
    </div>
  );
}
