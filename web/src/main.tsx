/**
 * The dashboard's shell: a tab per panel (kept in the URL's hash, so a reload stays on it), and the
 * token prompt, shown whenever the API answers 401 (the service listens beyond loopback). The token
 * is kept in sessionStorage only, and leaves with the tab.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onAuthNeeded, setToken, token } from './api';
import { useCapabilities } from './capabilities';
import { keepEvents, reconnectEvents } from './live';
import { DevicePanel } from './panels/device';
import { ImpedancePanel } from './panels/impedance';
import { OutputsPanel } from './panels/outputs';
import { RecordingsPanel } from './panels/recordings';
import { SignalsPanel } from './panels/signals';
import { StreamsPanel } from './panels/streams';

const PANELS = {
  device: { title: 'Device', view: DevicePanel },
  impedance: { title: 'Impedance', view: ImpedancePanel },
  signals: { title: 'Signals', view: SignalsPanel },
  streams: { title: 'Streams', view: StreamsPanel },
  outputs: { title: 'Outputs', view: OutputsPanel },
  recordings: { title: 'Recordings', view: RecordingsPanel },
} as const;

type PanelName = keyof typeof PANELS;

function panelFromHash(): PanelName {
  const name = location.hash.slice(1);
  return name in PANELS ? (name as PanelName) : 'device';
}

function TokenPrompt({ onDone }: { onDone: () => void }) {
  const [value, setValue] = useState('');
  return (
    <div class="overlay">
      <form
        class="card token"
        onSubmit={(e) => {
          e.preventDefault();
          setToken(value.trim());
          reconnectEvents();
          onDone();
        }}
      >
        <h2>Service token</h2>
        <p>
          This headset listens beyond loopback, so every request needs its token. On the headset,
          <code> headsetd token</code> prints it. It is kept in this tab only.
        </p>
        <input
          type="password"
          autocomplete="off"
          value={value}
          onInput={(e) => {
            setValue(e.currentTarget.value);
          }}
          data-testid="token-input"
          aria-label="token"
        />
        <button type="submit">Use token</button>
      </form>
    </div>
  );
}

function App() {
  const [panel, setPanel] = useState<PanelName>(panelFromHash());
  const [askToken, setAskToken] = useState(false);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const onHash = (): void => {
      setPanel(panelFromHash());
    };
    addEventListener('hashchange', onHash);
    const off = onAuthNeeded((needed) => {
      if (needed) setAskToken(true);
    });
    return () => {
      removeEventListener('hashchange', onHash);
      off();
    };
  }, []);
  const capabilities = useCapabilities();
  // The Impedance panel measures and moves electrodes: absent on a device with neither.
  const shown = (Object.keys(PANELS) as PanelName[]).filter(
    (name) =>
      name !== 'impedance' || capabilities === undefined || capabilities.impedance || capabilities.motors,
  );
  const View = PANELS[shown.includes(panel) ? panel : 'device'].view;
  return (
    <>
      <header>
        <h1>headsetd</h1>
        <nav>
          {shown.map((name) => (
            <a key={name} href={`#${name}`} class={name === panel ? 'active' : ''} data-panel={name}>
              {PANELS[name].title}
            </a>
          ))}
        </nav>
        <span class="spacer" />
        {token() !== undefined && (
          <button
            type="button"
            class="link"
            onClick={() => {
              setToken(undefined);
              setAskToken(true);
            }}
          >
            Forget token
          </button>
        )}
        <a href="/docs" class="small">
          API reference
        </a>
      </header>
      <main key={generation}>
        <View />
      </main>
      {askToken && (
        <TokenPrompt
          onDone={() => {
            setAskToken(false);
            setGeneration((g) => g + 1);
          }}
        />
      )}
    </>
  );
}

const root = document.getElementById('app');
if (root !== null) {
  root.textContent = '';
  keepEvents();
  render(<App />, root);
}
