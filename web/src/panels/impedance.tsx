/**
 * Impedance: the live head map, a continuous check, one-click optimisation with its progress per
 * electrode, and per-electrode motor controls. The map is the service's own
 * (GET /electrodes/impedance/map, SVG), fetched again after each measurement, so its geometry,
 * levels, thresholds and palettes are the service's and are not repeated here.
 */
import { useCapabilities } from '../capabilities';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describe, request } from '../api';
import { useEvents, usePoll } from '../live';
import type { ImpedanceSession, Job as JobAnswer } from '../api-types';

const STATE_NAMES = ['idle', 'moving', 'braked', 'stalled', 'fault'];
/** kΩ from which the service calls an electrode out of contact (docs/systems.md, diagnose). */
const NO_CONTACT_KOHMS = 1000;

/** A job as the panel reads its open `result` (docs/system-paths.md, jobs). */
type Job = Omit<JobAnswer, 'result'> & {
  result: {
    results?: Record<string, { before: number; after: number; reached: boolean; reason: string }>;
  } | null;
};

function HeadMap({ scheme, version }: { scheme: string; version: number }) {
  const [svg, setSvg] = useState('');
  const [error, setError] = useState('');
  useEffect(() => {
    let live = true;
    request(`/electrodes/impedance/map?format=svg&colorScheme=${scheme}`)
      .then((r) => r.text())
      .then((text) => {
        if (live) {
          setSvg(text);
          setError('');
        }
      })
      .catch((e: unknown) => {
        if (live) setError(describe(e));
      });
    return () => {
      live = false;
    };
  }, [scheme, version]);
  return (
    <div class="headmap" data-testid="headmap">
      {error !== '' && <p class="error">{error}</p>}
      {/* The service's SVG, escaped by it; inlined so that the page needs no image URL with a token. */}
      <div dangerouslySetInnerHTML={{ __html: svg }} />
    </div>
  );
}

function ContinuousCheck({ onReading }: { onReading: () => void }) {
  const session = usePoll(async () => {
    try {
      return await api<ImpedanceSession>('/electrodes/impedance');
    } catch {
      return undefined;
    }
  }, 1500);
  const [interval, setIntervalMs] = useState(1000);
  const [error, setError] = useState('');
  const running = session.value?.status === 'running' && session.value.mode === 'continuous';
  const act = (work: Promise<unknown>): void => {
    setError('');
    work
      .catch((e: unknown) => {
        setError(describe(e));
      })
      .finally(() => {
        session.refresh();
        onReading();
      });
  };
  return (
    <section class="card">
      <h2>Continuous check</h2>
      <p>
        <span class={`badge ${running ? 'ok' : ''}`} data-testid="impedance-session">
          {session.value === undefined ? 'no session' : `${session.value.mode} ${session.value.status}`}
        </span>
      </p>
      <div class="row">
        <label>
          every{' '}
          <input
            type="number"
            class="narrow"
            min={100}
            max={60000}
            step={100}
            value={interval}
            onInput={(e) => {
              setIntervalMs(Number(e.currentTarget.value));
            }}
          />{' '}
          ms
        </label>
        <button
          type="button"
          data-testid="impedance-start"
          disabled={running}
          onClick={() => {
            act(
              api('/electrodes/impedance/start', {
                method: 'POST',
                body: { continuous: true, updateInterval: interval },
              }),
            );
          }}
        >
          Start check
        </button>
        <button
          type="button"
          data-testid="impedance-stop"
          disabled={!running}
          onClick={() => {
            act(
              api('/electrodes/impedance/stop', {
                method: 'POST',
                body: { sessionId: session.value?.sessionId },
              }),
            );
          }}
        >
          Stop
        </button>
        <button
          type="button"
          onClick={() => {
            act(api('/electrodes/impedance/start', { method: 'POST', body: { continuous: false } }));
          }}
        >
          Measure once
        </button>
      </div>
      {error !== '' && <p class="error">{error}</p>}
    </section>
  );
}

function Optimisation({ onProgress }: { onProgress: () => void }) {
  const [jobId, setJobId] = useState<string | undefined>(undefined);
  const [strategy, setStrategy] = useState('gentle');
  const [target, setTarget] = useState(10);
  const [channels, setChannels] = useState('all');
  const [error, setError] = useState('');
  const job = usePoll(
    async () => (jobId === undefined ? undefined : (await api<{ job: Job }>(`/system/jobs/${jobId}`)).job),
    500,
    [jobId],
  );
  const j = job.value;
  const running = j?.status === 'running';
  useEffect(onProgress, [j?.updatedAt]);
  const electrodes = Object.entries(j?.progress.electrodes ?? {});
  return (
    <section class="card span2">
      <h2>Optimisation</h2>
      <div class="row">
        <label>
          channels{' '}
          <input
            value={channels}
            onInput={(e) => {
              setChannels(e.currentTarget.value);
            }}
            data-testid="optimize-channels"
          />
        </label>
        <label>
          target{' '}
          <input
            type="number"
            class="narrow"
            min={1}
            value={target}
            data-testid="optimize-target"
            onInput={(e) => {
              setTarget(Number(e.currentTarget.value));
            }}
          />{' '}
          kΩ
        </label>
        <label>
          strategy{' '}
          <select
            value={strategy}
            onChange={(e) => {
              setStrategy(e.currentTarget.value);
            }}
            data-testid="optimize-strategy"
          >
            {['gentle', 'aggressive', 'research', 'clinical', 'bci'].map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <button
          type="button"
          data-testid="optimize"
          disabled={running}
          onClick={() => {
            setError('');
            const list = channels.trim() === 'all' ? 'all' : channels.split(/[\s,]+/).filter((c) => c !== '');
            api<{ job: Job }>('/electrodes/impedance/optimize', {
              method: 'POST',
              body: { channels: list, targetImpedance: target, strategy },
            })
              .then((answer) => {
                setJobId(answer.job.id);
              })
              .catch((e: unknown) => {
                setError(describe(e));
              });
          }}
        >
          Optimise
        </button>
        {running && (
          <button
            type="button"
            onClick={() => {
              void api(`/system/jobs/${j.id}`, { method: 'DELETE' }).finally(job.refresh);
            }}
          >
            Cancel
          </button>
        )}
      </div>
      {error !== '' && <p class="error">{error}</p>}
      {j !== undefined && (
        <>
          <p data-testid="optimize-status">
            <span class={`badge ${j.status === 'completed' ? 'ok' : j.status === 'running' ? '' : 'warn'}`}>
              {j.status}
            </span>{' '}
            {j.progress.completed ?? 0} of {j.progress.total ?? electrodes.length} electrodes done
            {j.error !== null && ` · ${j.error.message}`}
          </p>
          <table class="progress-table">
            <thead>
              <tr>
                <th>electrode</th>
                <th>position</th>
                <th>kΩ</th>
                <th>attempts</th>
                <th>state</th>
              </tr>
            </thead>
            <tbody>
              {electrodes.map(([name, p]) => (
                <tr key={name} class={p.done ? 'done' : ''}>
                  <td>{name}</td>
                  <td>
                    <PositionBar position={p.position} />
                  </td>
                  <td>{p.impedance === null ? '…' : p.impedance.toFixed(1)}</td>
                  <td>{p.attempts ?? 0}</td>
                  <td>{p.done ? (p.reason ?? 'done') : (STATE_NAMES[p.state] ?? p.state)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

function PositionBar({ position }: { position: number }) {
  return (
    <div class="posbar" title={`${position} steps of 100`}>
      <div style={{ width: `${Math.max(0, Math.min(100, position))}%` }} />
      <span>{position.toFixed(0)}</span>
    </div>
  );
}

function Motors({ impedance }: { impedance: Record<string, number> }) {
  const motors = usePoll(async () => {
    const [positions, states] = await Promise.all([
      api<Record<string, number>>('/system/motors/position'),
      api<Record<string, number>>('/system/motors/state'),
    ]);
    return { positions, states };
  }, 500);
  const [step, setStep] = useState(10);
  const [error, setError] = useState('');
  const move = (electrode: string, movement: string): void => {
    setError('');
    const configuration = [
      movement === 'RETRACT' || movement === 'RELEASE'
        ? { electrode, movement, displacement: step }
        : { electrode, movement },
    ];
    api('/system/motors/position', { method: 'POST', body: { configuration } })
      .catch((e: unknown) => {
        setError(describe(e));
      })
      .finally(motors.refresh);
  };
  const names = Object.keys(motors.value?.positions ?? {});
  return (
    <section class="card span2">
      <h2>
        Motors{' '}
        <label class="small">
          step{' '}
          <input
            type="number"
            class="narrow"
            min={1}
            max={100}
            value={step}
            onInput={(e) => {
              setStep(Number(e.currentTarget.value));
            }}
          />
        </label>
      </h2>
      {error !== '' && <p class="error">{error}</p>}
      <table class="motors">
        <thead>
          <tr>
            <th>electrode</th>
            <th>position (0 retracted … 100 extended)</th>
            <th>motor</th>
            <th>contact</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {names.map((name) => {
            const position = motors.value?.positions[name] ?? 0;
            const state = motors.value?.states[name] ?? 0;
            const kohms = impedance[name];
            const contact =
              kohms === undefined
                ? 'unknown'
                : kohms >= NO_CONTACT_KOHMS
                  ? 'no contact'
                  : `contact, ${kohms.toFixed(1)} kΩ`;
            return (
              <tr key={name} data-electrode={name}>
                <td>{name}</td>
                <td>
                  <PositionBar position={position} />
                </td>
                <td class={state >= 3 ? 'warn-text' : ''}>{STATE_NAMES[state] ?? state}</td>
                <td>{contact}</td>
                <td class="buttons">
                  <button
                    type="button"
                    title="Retract (away from the scalp)"
                    onClick={() => {
                      move(name, 'RETRACT');
                    }}
                  >
                    ▲
                  </button>
                  <button
                    type="button"
                    title="Release (toward the scalp)"
                    onClick={() => {
                      move(name, 'RELEASE');
                    }}
                  >
                    ▼
                  </button>
                  <button
                    type="button"
                    title="Stop"
                    onClick={() => {
                      move(name, 'STOP');
                    }}
                  >
                    stop
                  </button>
                  <button
                    type="button"
                    title="Brake (stop and hold)"
                    onClick={() => {
                      move(name, 'BRAKE');
                    }}
                  >
                    brake
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

export function ImpedancePanel() {
  const capabilities = useCapabilities();
  const [scheme, setScheme] = useState('default');
  const [version, setVersion] = useState(0);
  const [impedance, setImpedance] = useState<Record<string, number>>({});
  const lastFetch = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // At most two map fetches a second, however fast readings come.
  const refresh = (): void => {
    if (timer.current !== undefined) return;
    const wait = Math.max(0, 500 - (Date.now() - lastFetch.current));
    timer.current = setTimeout(() => {
      timer.current = undefined;
      lastFetch.current = Date.now();
      setVersion((v) => v + 1);
    }, wait);
  };
  useEffect(
    () => () => {
      if (timer.current !== undefined) clearTimeout(timer.current);
    },
    [],
  );
  useEvents((e) => {
    if (e.type !== 'impedance') return;
    const values: Record<string, number> = {};
    for (const [k, v] of Object.entries(e.data)) values[k.toUpperCase()] = v;
    setImpedance((old) => ({ ...old, ...values }));
    refresh();
  });
  return (
    <div class="cards">
      <section class="card">
        <h2>
          Head map{' '}
          <label class="small">
            <select
              value={scheme}
              onChange={(e) => {
                setScheme(e.currentTarget.value);
              }}
              data-testid="color-scheme"
            >
              <option value="default">default colours</option>
              <option value="colorblind">colour-blind safe</option>
            </select>
          </label>
        </h2>
        <HeadMap scheme={scheme} version={version} />
      </section>
      {capabilities?.impedance === true && (
        <div class="stack">
          <ContinuousCheck onReading={refresh} />
        </div>
      )}
      {capabilities?.motors === true && capabilities.impedance && <Optimisation onProgress={refresh} />}
      {capabilities?.motors === true && <Motors impedance={impedance} />}
    </div>
  );
}
