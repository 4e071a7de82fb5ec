/**
 * OSC receivers independent of headsetd's encoder, for the `osc` node's tests:
 * - {@link libloReceiver}: python3-liblo (Debian's pyliblo under /usr/bin/python3) on a free
 *   loopback port; each message comes back with its address, type tags, each float32 argument's
 *   bits, and the time tags of the bundles around it (outermost first), as liblo decoded them
 *   (liblo hands Python a time tag as a double of NTP seconds: about 0.5 µs resolution).
 * - {@link oscdumpReceiver}: liblo-tools' `oscdump`, whose lines print the time tag of the bundle
 *   that holds a message exactly, as NTP seconds and fraction in hex.
 * Both report messages as they come, so a test waits for the count it expects, not for a time.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { createInterface } from 'node:readline';

export interface ReceivedOsc {
  path: string;
  types: string;
  /** The arguments: float32 ones as their value (from their bits), blobs as lists of bytes, others as liblo gave them. */
  args: unknown[];
  /** Time tags of the enclosing bundles, outermost first, as NTP seconds (double). */
  tags: number[];
}

export interface OscReceiver<T> {
  port: number;
  messages: T[];
  /** Resolves once `count` messages arrived (rejects after `timeoutMs`, naming how many did). */
  waitFor(count: number, timeoutMs?: number): Promise<T[]>;
  close(): Promise<void>;
}

const LIBLO_SCRIPT = String.raw`
import json, struct, sys, threading, liblo
server = liblo.Server()  # a free UDP port
stack = []
def start(tag, data): stack.append(tag)
def end(data): stack.pop()
server.add_bundle_handlers(start, end)
def message(path, args, types, src):
    out = []
    for t, a in zip(types, args):
        if t == "f": out.append({"bits": struct.unpack(">I", struct.pack(">f", a))[0]})
        elif t == "b": out.append(list(a))
        else: out.append(a)
    print(json.dumps({"path": path, "types": types, "args": out, "tags": list(stack)}), flush=True)
server.add_method(None, None, message)
done = threading.Event()
def watch():
    sys.stdin.read()
    done.set()
threading.Thread(target=watch, daemon=True).start()
print(json.dumps({"port": server.port}), flush=True)
while not done.is_set():
    server.recv(50)
`;

function float32(bits: number): number {
  return new Float32Array(new Uint32Array([bits]).buffer)[0] as number;
}

function receiver<T>(
  child: ChildProcess,
  port: Promise<number>,
  messages: T[],
  onLine: (line: string) => void,
) {
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    onLine(line);
    for (const w of waiters.splice(0)) w();
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const closed = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  return port.then(
    (p): OscReceiver<T> => ({
      port: p,
      messages,
      waitFor(count, timeoutMs = 20_000) {
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            reject(
              new Error(`${messages.length} of ${count} OSC messages arrived; receiver stderr: ${stderr}`),
            );
          }, timeoutMs);
          const check = () => {
            if (messages.length >= count) {
              clearTimeout(timer);
              resolve(messages);
            } else waiters.push(check);
          };
          check();
        });
      },
      async close() {
        child.stdin?.end();
        child.kill('SIGTERM');
        await closed;
      },
    }),
  );
}

/** A python3-liblo server on a free loopback port. */
export function libloReceiver(): Promise<OscReceiver<ReceivedOsc>> {
  const child = spawn('/usr/bin/python3', ['-u', '-c', LIBLO_SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
  const messages: ReceivedOsc[] = [];
  let gotPort: (port: number) => void = () => undefined;
  const port = new Promise<number>((resolve) => {
    gotPort = resolve;
  });
  return receiver(child, port, messages, (line) => {
    const parsed = JSON.parse(line) as { port?: number } & Omit<ReceivedOsc, 'args'> & { args: unknown[] };
    if (parsed.port !== undefined) {
      gotPort(parsed.port);
      return;
    }
    const args = parsed.args.map((a) =>
      a !== null && typeof a === 'object' && 'bits' in a ? float32((a as { bits: number }).bits) : a,
    );
    messages.push({ ...parsed, args });
  });
}

/** One line of oscdump: the time tag as printed (`seconds.fraction`, hex), the address and type tags. */
export interface DumpedOsc {
  tag: string;
  path: string;
  types: string;
}

async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) =>
    socket.close(() => {
      resolve();
    }),
  );
  return port;
}

/**
 * `oscdump` on a free port. It says nothing when it is ready, so a probe message is sent until it
 * prints it; the probe is not among `messages`.
 */
export async function oscdumpReceiver(): Promise<OscReceiver<DumpedOsc>> {
  const port = await freeUdpPort();
  const child = spawn('oscdump', ['-L', String(port)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const messages: DumpedOsc[] = [];
  let ready: () => void = () => undefined;
  const probed = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const result = receiver(child, Promise.resolve(port), messages, (line) => {
    const [tag = '', path = '', types = ''] = line.split(' ');
    if (path === '/probe') ready();
    else messages.push({ tag, path, types });
  });
  const sender = createSocket('udp4');
  // "/probe\0\0" ",\0\0\0": a message without arguments.
  const probe = Buffer.from('/probe\0\0,\0\0\0', 'latin1');
  const timer = setInterval(() => {
    sender.send(probe, port, '127.0.0.1');
  }, 100);
  sender.send(probe, port, '127.0.0.1');
  await probed;
  clearInterval(timer);
  sender.close();
  return result;
}
