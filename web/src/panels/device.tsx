/**
 * Device: battery, acquisition (state, rate, gain, channels; start and stop), the two LEDs, the
 * primary IMU's orientation, the host's health, and the live events of /system/events.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, describe } from '../api';
import { type DeviceEvent, recentEvents, usePoll } from '../live';
import type { DeviceStatus as Status, Health, Imu, Led } from '../api-types';
import { missingParts, useCapabilities } from '../capabilities';

const RATES = [250, 500, 1000, 2000, 4000, 8000, 16000];
const GAINS = [1, 2, 4, 6, 8, 12, 24];

const gib = (bytes: number): string => `${(bytes / 2 ** 30).toFixed(1)} GiB`;

function Meter({ value, max, label }: { value: number; max: number; label: string }) {
  return (
    <div class="meter" title={label}>
      <div class="meter-fill" style={{ width: `${Math.max(0, Math.min(100, (100 * value) / max))}%` }} />
      <span>{label}</span>
    </div>
  );
}

function Acquisition({ status, onChange }: { status: Status | undefined; onChange: () => void }) {
  const [error, setError] = useState('');
  const [rate, setRate] = useState(250);
  const [gain, setGain] = useState(24);
  const [channels, setChannels] = useState('');
  const config = status?.eeg.config;
  useEffect(() => {
    if (config === undefined) return;
    setRate(config.samplingFrequency);
    setGain(config.gain);
    setChannels(config.channels.join(', '));
  }, [config?.samplingFrequency, config?.gain, config?.channels.join(',')]);
  const act = async (work: () => Promise<unknown>): Promise<void> => {
    setError('');
    try {
      await work();
    } catch (e) {
      setError(describe(e));
    }
    onChange();
  };
  const streaming = status?.eeg.streaming === true;
  return (
    <section class="card">
      <h2>Acquisition</h2>
      <p>
        <span class={`badge ${streaming ? 'ok' : ''}`} data-testid="acquisition-state">
          {streaming ? 'acquiring' : (status?.state ?? '…')}
        </span>{' '}
        {status !== undefined && `${status.eeg.samples.toLocaleString()} samples`}
        {status !== undefined && status.eeg.owners.length > 0 && ` · held by ${status.eeg.owners.join(', ')}`}
      </p>
      <div class="row">
        <button
          type="button"
          data-testid="acquisition-start"
          disabled={streaming}
          onClick={() => void act(() => api('/system/sensors/eeg/stream', { method: 'POST' }))}
        >
          Start acquisition
        </button>
        <button
          type="button"
          data-testid="acquisition-stop"
          disabled={!streaming}
          onClick={() => void act(() => api('/system/sensors/eeg/stream', { method: 'DELETE' }))}
        >
          Stop
        </button>
      </div>
      <form
        class="grid-form"
        onSubmit={(e) => {
          e.preventDefault();
          void act(() =>
            api('/system/sensors/eeg', {
              method: 'PUT',
              body: {
                samplingFrequency: rate,
                gain,
                channels: channels
                  .split(/[\s,]+/)
                  .map((c) => c.trim())
                  .filter((c) => c !== ''),
              },
            }),
          );
        }}
      >
        <label>
          Rate (Hz)
          <select
            value={rate}
            onChange={(e) => {
              setRate(Number(e.currentTarget.value));
            }}
          >
            {(config === undefined || RATES.includes(config.samplingFrequency)
              ? RATES
              : [config.samplingFrequency, ...RATES]
            ).map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label>
          Gain
          <select
            value={gain}
            onChange={(e) => {
              setGain(Number(e.currentTarget.value));
            }}
          >
            {GAINS.map((g) => (
              <option key={g} value={g}>
                ×{g}
              </option>
            ))}
          </select>
        </label>
        <label class="wide">
          Channels
          <input
            value={channels}
            onInput={(e) => {
              setChannels(e.currentTarget.value);
            }}
          />
        </label>
        <button type="submit">Apply settings</button>
      </form>
      {status !== undefined && (
        <p class="small" data-testid="device-channels">
          {status.channels.played.length} channels:{' '}
          {/* A channel in another unit than µV (an accelerometer in g) says its unit. */}
          {status.channels.played.map((c) => (c.unit === 'µV' ? c.name : `${c.name} (${c.unit})`)).join(', ')}
          {status.channels.unplayed.length > 0 && (
            <span data-testid="device-unplayed">
              {' '}
              · not played: {status.channels.unplayed.map((c) => `${c.name} (${c.reason})`).join('; ')}
            </span>
          )}
        </p>
      )}
      {error !== '' && <p class="error">{error}</p>}
    </section>
  );
}

function Leds() {
  const leds = usePoll(
    () => Promise.all(['USER', 'STATUS'].map((index) => api<Led>(`/system/led/state?index=${index}`))),
    2000,
  );
  const [color, setColor] = useState('#00ff00');
  const [blinks, setBlinks] = useState(0);
  const [error, setError] = useState('');
  return (
    <section class="card">
      <h2>LEDs</h2>
      <ul class="plain">
        {(leds.value ?? []).map((led) => (
          <li key={led.index}>
            <span class="swatch" style={{ background: led.state === 'OFF' ? '#000' : led.color }} />{' '}
            {led.index}: {led.state.toLowerCase()}
            {led.state !== 'OFF' && ` ${led.color}`}
            {led.blinksPerSecond > 0 && `, ${led.blinksPerSecond} blinks/s`}
          </li>
        ))}
      </ul>
      <div class="row">
        <input
          type="color"
          value={color}
          onInput={(e) => {
            setColor(e.currentTarget.value);
          }}
          aria-label="USER LED colour"
        />
        <label>
          blinks/s{' '}
          <input
            type="number"
            min={0}
            max={20}
            value={blinks}
            class="narrow"
            onInput={(e) => {
              setBlinks(Number(e.currentTarget.value));
            }}
          />
        </label>
        <button
          type="button"
          onClick={() => {
            setError('');
            api('/system/led/state', {
              method: 'PUT',
              body: { index: 'USER', color, blinksPerSecond: blinks },
            })
              .catch((e: unknown) => {
                setError(describe(e));
              })
              .finally(leds.refresh);
          }}
        >
          Set USER LED
        </button>
      </div>
      {error !== '' && <p class="error">{error}</p>}
    </section>
  );
}

/** A top-down attitude disc: the horizon tilts with roll and moves with pitch; yaw turns the needle. */
function Orientation() {
  const imu = usePoll(() => api<Imu>('/system/sensors/imu/primary'), 500);
  const v = imu.value;
  const roll = v?.roll ?? 0;
  const pitch = v?.pitch ?? 0;
  const yaw = v?.yaw ?? 0;
  return (
    <section class="card">
      <h2>Orientation (primary IMU)</h2>
      <div class="row">
        <svg viewBox="-50 -50 100 100" width="120" height="120" role="img" aria-label="attitude">
          <clipPath id="disc">
            <circle r="46" />
          </clipPath>
          <g clip-path="url(#disc)">
            <rect x="-60" y="-60" width="120" height="120" fill="#9CC9F0" />
            <g transform={`rotate(${-roll}) translate(0 ${pitch * 1.5})`}>
              <rect x="-80" y="0" width="160" height="80" fill="#C8A574" />
              <line x1="-80" x2="80" y1="0" y2="0" stroke="#fff" stroke-width="1.5" />
            </g>
          </g>
          <circle r="46" fill="none" stroke="#333" stroke-width="2" />
          <line x1="-18" x2="18" y1="0" y2="0" stroke="#111" stroke-width="3" />
          <g transform={`rotate(${yaw})`}>
            <polygon points="0,-49 -4,-41 4,-41" fill="#D62728" />
          </g>
        </svg>
        <table class="kv">
          <tbody>
            <tr>
              <th>roll</th>
              <td>{roll.toFixed(1)}°</td>
            </tr>
            <tr>
              <th>pitch</th>
              <td>{pitch.toFixed(1)}°</td>
            </tr>
            <tr>
              <th>yaw</th>
              <td>{yaw.toFixed(1)}°</td>
            </tr>
            <tr>
              <th>position</th>
              <td>
                {v === undefined
                  ? '…'
                  : `${v.pos_x.toFixed(1)}, ${v.pos_y.toFixed(1)}, ${v.pos_z.toFixed(1)} mm`}
              </td>
            </tr>
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Events() {
  const [events, setEvents] = useState<DeviceEvent[]>([...recentEvents]);
  const [showQuality, setShowQuality] = useState(false);
  // The page keeps the events (live.ts); the feed shows them four times a second at most: a quality
  // event comes every second, an impedance one after each measurement.
  useEffect(() => {
    const timer = setInterval(() => {
      if (recentEvents[0] !== events[0]) setEvents([...recentEvents]);
    }, 250);
    return () => {
      clearInterval(timer);
    };
  }, [events]);
  const shown = events.filter((e) => showQuality || e.type !== 'quality');
  return (
    <section class="card span2">
      <h2>
        Live events{' '}
        <label class="small">
          <input
            type="checkbox"
            checked={showQuality}
            onChange={(e) => {
              setShowQuality(e.currentTarget.checked);
            }}
          />{' '}
          quality too
        </label>
      </h2>
      <ol class="events" data-testid="events">
        {shown.length === 0 && <li class="muted">No event yet.</li>}
        {shown.slice(0, 60).map((e, i) => (
          <li key={`${e.timestamp}-${i}`} class={e.type === 'system' ? e.level : ''}>
            <time>{new Date(e.timestamp).toLocaleTimeString()}</time>{' '}
            <b>{e.type === 'system' ? e.eventType : e.type}</b>{' '}
            {e.type === 'system' ? e.message : summarise(e)}
          </li>
        ))}
      </ol>
    </section>
  );
}

function summarise(e: DeviceEvent): string {
  if (e.type === 'impedance') {
    const values = Object.values(e.data);
    return `${values.length} electrodes, median ${median(values).toFixed(1)} kΩ`;
  }
  if (e.type === 'quality') return `overall ${(e.data.overall * 100).toFixed(0)} %`;
  return '';
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export function DevicePanel() {
  const status = usePoll(async () => (await api<{ status: Status }>('/system/status')).status, 1000);
  const health = usePoll(() => api<Health>('/system/healthz'), 5000);
  const s = status.value;
  const h = health.value;
  const capabilities = useCapabilities();
  const missing = capabilities === undefined ? [] : missingParts(capabilities);
  return (
    <div class="cards">
      <section class="card">
        <h2>{s?.battery === null ? 'Host' : 'Battery and host'}</h2>
        {s === undefined ? (
          <p class="muted">{status.error === undefined ? 'Loading…' : describe(status.error)}</p>
        ) : (
          <>
            {s.battery !== null && (
              <Meter
                value={s.battery.percent}
                max={100}
                label={`battery ${s.battery.percent} %${s.battery.isCharging ? ', charging' : ''}${
                  h === undefined || h.battery.timeRemaining === null
                    ? ''
                    : `, ${Math.round(h.battery.timeRemaining)} min left`
                }`}
              />
            )}
            {h !== undefined && (
              <>
                <Meter
                  value={h.cpu.load}
                  max={100}
                  label={`CPU ${h.cpu.load.toFixed(0)} %, ${h.cpu.temperature} °C`}
                />
                <Meter
                  value={h.ram.total - h.ram.available}
                  max={h.ram.total}
                  label={`RAM ${gib(h.ram.total - h.ram.available)} of ${gib(h.ram.total)}`}
                />
                <Meter
                  value={h.storage.total - h.storage.free}
                  max={h.storage.total}
                  label={`storage ${gib(h.storage.free)} free`}
                />
                <p>
                  <span class={`badge ${h.status === 'healthy' ? 'ok' : 'warn'}`}>{h.status}</span> {h.host} ·
                  headsetd {s.version} · up {Math.round(s.uptimeSeconds)} s · streams {s.streams.running}/
                  {s.streams.total} running
                </p>
                {missing.length > 0 && (
                  <p class="muted" data-testid="missing-parts">
                    This device has no {missing.join(', ')}: those controls are not shown.
                  </p>
                )}
                {h.problems.map((p) => (
                  <p class="warning" key={p}>
                    {p}
                  </p>
                ))}
              </>
            )}
          </>
        )}
      </section>
      <Acquisition status={s} onChange={status.refresh} />
      {capabilities?.leds === true && <Leds />}
      {capabilities?.imu === true && <Orientation />}
      <Events />
    </div>
  );
}
