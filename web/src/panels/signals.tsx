/**
 * Signals: the device's EEG as scrolling traces of the channels chosen, with scale, time window and
 * display filters, each lane marked with its channel's quality (the `quality` events), and the
 * power spectrum of one channel with the alpha band marked. Frames go straight into TraceBuffer;
 * the canvases are redrawn in requestAnimationFrame, never by a render of the component, and only
 * when there is something new to draw (frames, a setting, a quality, the canvas's size): a page
 * left open without new frames does no drawing at all, and a hidden tab none either (browsers run
 * no animation frames there). The traces at most 30 times a second, the spectrum four.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describe } from '../api';
import { useEvents } from '../live';
import { drawSpectrum, drawTraces } from '../plots';
import { connectEeg, TraceBuffer } from '../traces';

const WINDOWS = [2, 5, 10, 20, 30];
/** The spectrum changes slowly: four times a second is enough, and keeps the FFT off most frames. */
const SPECTRUM_EVERY_MS = 250;
/**
 * The traces are redrawn 30 times a second at most: scrolling stays smooth, and a display faster
 * than that (60 Hz and up) no longer spends every one of its frames on 19 lanes of paths (in
 * Chromium without a GPU, the panel's cost while EEG comes fell from about 70 % of a core to 50 %;
 * docs/performance.md). A draw is due 4 ms before 1/30 s is up, so that display frames a little
 * early (60 Hz frames come every 16.7 ms, give or take) still give every second frame rather than
 * every third.
 */
const TRACES_EVERY_MS = 1000 / 30;
const FRAME_JITTER_MS = 4;
const SCALES = [10, 20, 50, 100, 200, 500, 1000];

export function SignalsPanel() {
  const buffer = useRef(new TraceBuffer());
  const traces = useRef<HTMLCanvasElement>(null);
  const spectrum = useRef<HTMLCanvasElement>(null);
  const [connection, setConnection] = useState('connecting');
  const [channels, setChannels] = useState<string[]>([]);
  const [hidden, setHidden] = useState<Set<string>>(new Set());
  const [windowSeconds, setWindowSeconds] = useState(10);
  const [scale, setScale] = useState(50);
  const [highpass, setHighpass] = useState(1);
  const [lowpass, setLowpass] = useState(40);
  const [notchHz, setNotchHz] = useState(50);
  const [spectrumChannel, setSpectrumChannel] = useState('O1');
  const [error, setError] = useState('');
  const quality = useRef<Record<string, number>>({});
  const view = useRef({ windowSeconds, scale, hidden, spectrumChannel });
  view.current = { windowSeconds, scale, hidden, spectrumChannel };

  /** Asks for the canvases to be drawn at the next animation frame (set by the drawing effect). */
  const redraw = useRef((): void => undefined);

  useEvents((e) => {
    if (e.type !== 'quality') return;
    let changed = false;
    for (const [k, v] of Object.entries(e.data.channels)) {
      const name = k.toUpperCase();
      if (quality.current[name] !== v) changed = true;
      quality.current[name] = v;
    }
    if (changed) redraw.current();
  });

  useEffect(
    () =>
      connectEeg(buffer.current, setConnection, () => {
        redraw.current();
      }),
    [],
  );

  useEffect(() => {
    buffer.current.setFilter({ highpass, lowpass, notch: notchHz });
  }, [highpass, lowpass, notchHz]);

  useEffect(() => {
    redraw.current();
  }, [windowSeconds, scale, hidden, spectrumChannel]);

  useEffect(() => {
    let frame = 0;
    let tracesStale = true;
    let spectrumStale = true;
    let lastTraces = Number.NEGATIVE_INFINITY;
    let lastSpectrum = Number.NEGATIVE_INFINITY;
    let spectrumDue: ReturnType<typeof setTimeout> | undefined;
    let knownChannels = '';
    const schedule = (): void => {
      if (frame === 0) frame = requestAnimationFrame(draw);
    };
    const draw = (now: number): void => {
      frame = 0;
      const b = buffer.current;
      const names = b.channels.join(',');
      if (names !== knownChannels) {
        knownChannels = names;
        setChannels([...b.channels]);
      }
      const v = view.current;
      if (tracesStale && traces.current !== null && now - lastTraces < TRACES_EVERY_MS - FRAME_JITTER_MS) {
        // Too soon after the last: drawn in a later display frame, with whatever came meanwhile.
        schedule();
      } else if (tracesStale && traces.current !== null) {
        tracesStale = false;
        lastTraces = now;
        drawTraces(traces.current, b, {
          shown: b.channels.map((_, i) => i).filter((i) => !v.hidden.has(b.channels[i] ?? '')),
          windowSeconds: v.windowSeconds,
          microvoltsPerLane: v.scale,
          quality: quality.current,
        });
      }
      if (!spectrumStale || spectrum.current === null) return;
      const wait = lastSpectrum + SPECTRUM_EVERY_MS - now;
      if (wait <= 0) {
        spectrumStale = false;
        lastSpectrum = now;
        const index = Math.max(0, b.channels.indexOf(v.spectrumChannel));
        drawSpectrum(spectrum.current, b, index);
      } else if (spectrumDue === undefined) {
        // Drawn later, so that the last frames before a pause are in it too.
        spectrumDue = setTimeout(() => {
          spectrumDue = undefined;
          schedule();
        }, wait);
      }
    };
    redraw.current = (): void => {
      tracesStale = true;
      spectrumStale = true;
      schedule();
    };
    const resized = new ResizeObserver(() => {
      redraw.current();
    });
    for (const canvas of [traces.current, spectrum.current]) if (canvas !== null) resized.observe(canvas);
    redraw.current();
    return () => {
      redraw.current = () => undefined;
      cancelAnimationFrame(frame);
      clearTimeout(spectrumDue);
      resized.disconnect();
    };
  }, []);

  const acquisition = (method: string): void => {
    setError('');
    api('/system/sensors/eeg/stream', { method }).catch((e: unknown) => {
      setError(describe(e));
    });
  };

  return (
    <div class="signals">
      <div class="toolbar">
        <span class={`badge ${connection === 'connected' ? 'ok' : ''}`}>EEG socket {connection}</span>
        <button
          type="button"
          data-testid="signals-start"
          onClick={() => {
            acquisition('POST');
          }}
        >
          Start acquisition
        </button>
        <button
          type="button"
          onClick={() => {
            acquisition('DELETE');
          }}
        >
          Stop
        </button>
        <label>
          window{' '}
          <select
            value={windowSeconds}
            onChange={(e) => {
              setWindowSeconds(Number(e.currentTarget.value));
            }}
          >
            {WINDOWS.map((w) => (
              <option key={w} value={w}>
                {w} s
              </option>
            ))}
          </select>
        </label>
        <label>
          scale{' '}
          <select
            value={scale}
            onChange={(e) => {
              setScale(Number(e.currentTarget.value));
            }}
          >
            {SCALES.map((s) => (
              <option key={s} value={s}>
                ±{s} µV
              </option>
            ))}
          </select>
        </label>
        <label>
          band-pass{' '}
          <input
            type="number"
            class="narrow"
            min={0}
            step={0.1}
            value={highpass}
            onInput={(e) => {
              setHighpass(Number(e.currentTarget.value));
            }}
          />
          –
          <input
            type="number"
            class="narrow"
            min={0}
            value={lowpass}
            onInput={(e) => {
              setLowpass(Number(e.currentTarget.value));
            }}
          />{' '}
          Hz
        </label>
        <label>
          notch{' '}
          <select
            value={notchHz}
            onChange={(e) => {
              setNotchHz(Number(e.currentTarget.value));
            }}
          >
            <option value={0}>off</option>
            <option value={50}>50 Hz</option>
            <option value={60}>60 Hz</option>
          </select>
        </label>
      </div>
      {error !== '' && <p class="error">{error}</p>}
      <div class="channel-picks">
        {channels.map((c) => (
          <label key={c} class="pick">
            <input
              type="checkbox"
              checked={!hidden.has(c)}
              onChange={(e) => {
                const next = new Set(hidden);
                if (e.currentTarget.checked) next.delete(c);
                else next.add(c);
                setHidden(next);
              }}
            />
            {c}
          </label>
        ))}
      </div>
      <canvas ref={traces} class="traces" data-testid="traces" />
      <div class="spectrum-head">
        <h2>Spectrum</h2>
        <select
          value={spectrumChannel}
          onChange={(e) => {
            setSpectrumChannel(e.currentTarget.value);
          }}
        >
          {channels.map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
        <span class="muted">
          Display filters shape the traces and the spectrum only; a stream's filter node shapes data.
        </span>
      </div>
      <canvas ref={spectrum} class="spectrum" data-testid="spectrum" />
    </div>
  );
}
