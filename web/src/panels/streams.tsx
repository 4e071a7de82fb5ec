/**
 * Streams: every stream of the device, the one selected drawn as its graph (nodes with their state
 * and metrics, pipes with their ports, counters and latency, refreshed every second from the
 * status), its lifecycle buttons, a node's log, and the YAML editor that checks the document
 * against the API as it is typed and creates or replaces the stream.
 */
import { useState } from 'preact/hooks';
import { api, describe, request } from '../api';
import { usePoll } from '../live';
import { layout, NODE_HEIGHT, NODE_WIDTH } from '../graph';
import { Editor, type Editing, nameIn } from './stream-editor';
import type { NodeDef, PipeDef, StreamStatus as Status, StreamSummary } from '../api-types';

const STATE_COLORS: Record<string, string> = {
  running: '#2E9E44',
  paused: '#F2C80F',
  error: '#D62728',
  initialized: '#1F6FD1',
  created: '#9E9E9E',
  terminated: '#616161',
};

const count = (n: number): string => (n >= 10_000 ? `${(n / 1000).toFixed(0)}k` : String(n));

function Graph({
  nodes,
  pipes,
  status,
  selected,
  onSelect,
}: {
  nodes: NodeDef[];
  pipes: PipeDef[];
  status: Status | undefined;
  selected: string | undefined;
  onSelect: (id: string) => void;
}) {
  const { at, width, height } = layout(nodes, pipes);
  const nodeStatus = new Map(status?.nodes.map((n) => [n.id, n]) ?? []);
  return (
    <svg
      class="graph"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      data-testid="stream-graph"
    >
      <defs>
        <marker
          id="arrow"
          viewBox="0 0 10 10"
          refX="9"
          refY="5"
          markerWidth="7"
          markerHeight="7"
          orient="auto"
        >
          <path d="M0,0 L10,5 L0,10 z" fill="#555" />
        </marker>
      </defs>
      {pipes.map((p) => {
        const a = at.get(p.source);
        const b = at.get(p.destination);
        if (a === undefined || b === undefined) return null;
        const x1 = a.x + NODE_WIDTH;
        const y1 = a.y + NODE_HEIGHT / 2;
        const x2 = b.x;
        const y2 = b.y + NODE_HEIGHT / 2;
        const mx = (x1 + x2) / 2;
        const counters = status?.pipes[p.id];
        const latency = nodeStatus.get(p.destination)?.metrics.latency?.[p.id];
        const dropped = (counters?.framesDropped ?? 0) > 0;
        return (
          <g key={p.id} class="pipe" data-pipe={p.id}>
            <path
              d={`M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2 - 2},${y2}`}
              fill="none"
              stroke={dropped ? '#D62728' : '#555'}
              stroke-width="2"
              marker-end="url(#arrow)"
            />
            <circle cx={x1} cy={y1} r="4" fill="#fff" stroke="#555" />
            <text x={x1 + 6} y={y1 - 6} class="port">
              {p.sourcePort ?? 'out'}
            </text>
            <text x={x2 - 6} y={y2 - 6} class="port" text-anchor="end">
              {p.targetPort ?? 'in'}
            </text>
            <text x={mx} y={(y1 + y2) / 2 + 16} class="edge-label" text-anchor="middle">
              {p.id}: {count(counters?.framesSent ?? 0)} sent
              {dropped ? `, ${count(counters?.framesDropped ?? 0)} dropped` : ''}
            </text>
            {latency !== undefined && (
              <text x={mx} y={(y1 + y2) / 2 + 30} class="edge-label" text-anchor="middle">
                p50 {latency.p50.toFixed(1)} · p99 {latency.p99.toFixed(1)} ms
              </text>
            )}
          </g>
        );
      })}
      {nodes.map((n) => {
        const p = at.get(n.id);
        if (p === undefined) return null;
        const s = nodeStatus.get(n.id);
        const state = s?.state ?? 'created';
        const m = s?.metrics;
        return (
          <g
            key={n.id}
            class={`node ${selected === n.id ? 'selected' : ''}`}
            data-node={n.id}
            data-state={state}
            transform={`translate(${p.x} ${p.y})`}
            onClick={() => {
              onSelect(n.id);
            }}
          >
            <rect
              width={NODE_WIDTH}
              height={NODE_HEIGHT}
              rx="8"
              fill="#fff"
              stroke={STATE_COLORS[state] ?? '#555'}
              stroke-width="3"
            />
            <rect width="10" height={NODE_HEIGHT} rx="4" fill={STATE_COLORS[state] ?? '#555'} />
            <text x="18" y="20" class="node-title">
              {n.id}
            </text>
            <text x="18" y="37" class="node-sub">
              {n.executable.length > 26 ? `${n.executable.slice(0, 25)}…` : n.executable}
            </text>
            <text x="18" y="54" class="node-sub" data-testid="node-state">
              {state}
              {s?.port !== undefined ? ` · port ${s.port}` : ''}
            </text>
            <text x="18" y="71" class="node-metric" data-testid="node-items">
              {m === undefined
                ? ''
                : `${count(m.itemsProcessed)} frames · ${count(m.samplesProcessed)} samples`}
            </text>
            <text x="18" y="86" class="node-metric">
              {m === undefined
                ? ''
                : `q ${m.queueDepth} · drop ${m.framesDropped} · err ${m.errorCount}${m.restarts > 0 ? ` · ↻${m.restarts}` : ''}`}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

function NodeLogs({ streamId, nodeId }: { streamId: string; nodeId: string }) {
  const logs = usePoll(
    async () =>
      (
        await api<{ logs: { timestamp: number; stream: string; line: string }[] }>(
          `/stream/streams/${streamId}/nodes/${nodeId}/logs`,
        )
      ).logs,
    2000,
    [streamId, nodeId],
  );
  const lines = logs.value ?? [];
  return (
    <section class="card">
      <h2>Log of {nodeId}</h2>
      {logs.error !== undefined && <p class="error">{describe(logs.error)}</p>}
      <pre class="logs" data-testid="node-logs">
        {lines.length === 0
          ? 'No line yet.'
          : lines
              .slice(-80)
              .map((l) => `${new Date(l.timestamp).toLocaleTimeString()} ${l.line}`)
              .join('\n')}
      </pre>
    </section>
  );
}

export function StreamsPanel() {
  const list = usePoll(
    async () => (await api<{ streams: StreamSummary[] }>('/stream/streams')).streams,
    2000,
  );
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [node, setNode] = useState<string | undefined>(undefined);
  const [editing, setEditing] = useState<Editing | undefined>(undefined);
  const [error, setError] = useState('');
  const definition = usePoll(
    async () =>
      selected === undefined
        ? undefined
        : (
            await api<{
              stream: { id: string; meta: StreamSummary['meta']; nodes: NodeDef[]; pipes: PipeDef[] };
            }>(`/stream/streams/${selected}`)
          ).stream,
    5000,
    [selected],
  );
  const status = usePoll(
    async () =>
      selected === undefined
        ? undefined
        : (await api<{ status: Status }>(`/stream/streams/${selected}/status`)).status,
    1000,
    [selected],
  );
  const signal = (name: string): void => {
    if (selected === undefined) return;
    setError('');
    api(`/stream/streams/${selected}/signal`, { method: 'POST', body: { signal: name } })
      .catch((e: unknown) => {
        setError(describe(e));
      })
      .finally(() => {
        status.refresh();
        list.refresh();
      });
  };
  const remove = (): void => {
    if (selected === undefined || !confirm(`Delete the stream ${selected}?`)) return;
    api(`/stream/streams/${selected}`, { method: 'DELETE' })
      .then(() => {
        setSelected(undefined);
        setEditing(undefined);
      })
      .catch((e: unknown) => {
        setError(describe(e));
      })
      .finally(list.refresh);
  };
  /** Loads a stream's document into the editor, which then replaces that stream. */
  const edit = (id = selected, note?: string): void => {
    if (id === undefined) return;
    request(`/stream/streams/${id}/yaml`)
      .then((r) => r.text())
      .then((yaml) => {
        const name = nameIn(yaml);
        setEditing({
          id,
          yaml,
          ...(name === undefined ? {} : { name }),
          ...(note === undefined ? {} : { note }),
        });
      })
      .catch((e: unknown) => {
        setError(describe(e));
      });
  };
  const s = status.value;
  const d = definition.value;
  return (
    <div class="streams">
      <aside class="stream-list">
        <h2>Streams</h2>
        <button
          type="button"
          onClick={() => {
            setEditing(undefined);
          }}
        >
          New stream
        </button>
        <ul class="plain" data-testid="stream-list">
          {(list.value ?? []).map((st) => (
            <li key={st.id}>
              <button
                type="button"
                class={`link ${selected === st.id ? 'active' : ''}`}
                data-stream={st.id}
                onClick={() => {
                  setSelected(st.id);
                  setNode(undefined);
                }}
              >
                <span class="dot" style={{ background: STATE_COLORS[st.state] ?? '#9E9E9E' }} />
                {st.meta.name ?? st.id.slice(0, 8)} <small>{st.state}</small>
              </button>
            </li>
          ))}
        </ul>
      </aside>
      <div class="cards">
        {selected !== undefined && (
          <section class="card span2">
            <h2>
              <span data-testid="stream-name">
                {d === undefined ? '…' : (d.meta.name ?? 'Unnamed stream')}
              </span>{' '}
              <small class="muted" data-testid="stream-id">
                {selected}
              </small>{' '}
              <span
                class={`badge ${s?.state === 'running' ? 'ok' : s?.state === 'error' ? 'warn' : ''}`}
                data-testid="stream-state"
              >
                {s?.state ?? '…'}
              </span>
              {s?.degraded === true && <span class="badge warn">degraded</span>}
            </h2>
            <div class="row">
              {['start', 'stop', 'pause', 'resume'].map((name) => (
                <button
                  type="button"
                  key={name}
                  data-testid={`signal-${name}`}
                  onClick={() => {
                    signal(name);
                  }}
                >
                  {name}
                </button>
              ))}
              <button
                type="button"
                onClick={() => {
                  edit();
                }}
              >
                Edit YAML
              </button>
              <button type="button" onClick={remove}>
                Delete
              </button>
            </div>
            {s?.error !== null && s?.error !== undefined && <p class="error">{s.error}</p>}
            {error !== '' && <p class="error">{error}</p>}
            <div class="graph-box">
              {d !== undefined && (
                <Graph nodes={d.nodes} pipes={d.pipes} status={s} selected={node} onSelect={setNode} />
              )}
            </div>
            <p class="muted">Click a node to read its log.</p>
          </section>
        )}
        {selected !== undefined && node !== undefined && <NodeLogs streamId={selected} nodeId={node} />}
        <Editor
          editing={editing}
          onSaved={(id, created) => {
            setSelected(id);
            list.refresh();
            definition.refresh();
            // The document now names a stream that exists: checked as a create it would be refused
            // for its taken id, so the editor goes on as the editor of that stream.
            edit(
              id,
              created
                ? `Created ${id}. The editor now edits this stream: Replace stream saves changes.`
                : 'Saved.',
            );
          }}
        />
      </div>
    </div>
  );
}
