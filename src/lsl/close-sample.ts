/**
 * The sample liblsl sends when its outlet closes, kept out of an inlet's frames.
 *
 * liblsl from 1.16.0 to 1.17.3 (fixed in 1.17.4) wakes the threads that feed its consumers, when
 * an outlet is destroyed, by pushing one more sample into their queues: `tcp_server::end_serving()`
 * pushes `factory->new_sample(lsl_clock(), true)`, a sample taken from the outlet's pool and never
 * filled. The threads no longer check that the server is shutting down, so it goes out like any
 * sample: in protocol 1.10 tag 2 (timestamp transmitted), the outlet's clock at the moment it
 * closed, and the values the pool's slot held (protocol 1.00 carries the same in its archive
 * form): zeros when the slot was never used, else the values of a sample the outlet sent earlier
 * (the pool holds 5 s of samples, used in turn). Then the outlet shuts the connection down, though
 * not always at once, and not every time after the sample: the thread that shuts the sockets down
 * races the one that writes. liblsl 1.12 to 1.15 check the shutdown flag and send nothing.
 *
 * Neither its form nor its values give it away (in the tests they were zeros, and as often bytes
 * no sample held); its place does: it is the last thing the outlet sends, then the connection ends
 * or goes silent with the outlet gone. So a feed holds back the last sample it received until the
 * outlet shows it still runs: the next sample comes, or, after {@link HOLD_MS} of silence, the
 * outlet answers a query for its uid on its service port; then the sample passes. When instead the
 * connection ends, or the outlet's service port, which answered before, shows that it is gone
 * ({@link outletAnswers}), the held sample was the close sample and is left out. The cost: each
 * batch's last sample passes with the next batch (or after the probe), and a sample an outlet
 * sends less than {@link HOLD_MS} before it closes is left out with the close sample, whichever
 * version sent it.
 */
import dgram from 'node:dgram';
import { xpathLiteral } from './resolver.js';

/** How long a held sample waits for the next one before the outlet is asked whether it still runs. */
export const HOLD_MS = 100;
/** Between two queries for the outlet's uid. */
const PROBE_INTERVAL_MS = 150;
/**
 * How long an outlet whose port neither answers nor refuses is given before it counts as gone. A
 * live outlet's answer can take longer than a few probes' wait: a loaded machine, a Wi-Fi link
 * that sleeps or drops datagrams. Counting it gone would leave out a real sample and reconnect,
 * losing what it sends meanwhile. A closed outlet's port refuses at once, and one another outlet
 * took answers time probes but not our uid (both below): only a network that drops everything
 * waits this long.
 */
const PATIENCE_MS = 2000;

export interface Sample {
  timestamp: number;
  values: number[];
}

/**
 * The log line for a sample left out at an outlet's close. It does not say the outlet never pushed
 * it: with liblsl 1.12 to 1.15 (no close sample) it is a real sample sent less than HOLD_MS before
 * the close, and nothing on the wire tells the two apart.
 */
export function leftOutNote(sample: Sample, withValues: boolean): string {
  const values = withValues ? `, values ${sample.values.join(', ')}` : '';
  return `left out the last sample its outlet sent before closing (timestamp ${sample.timestamp.toFixed(6)}${values}; counted in closeSamplesDropped): liblsl 1.16.0 to 1.17.3 send a sample nobody pushed as an outlet closes, which nothing tells from a real one sent less than ${HOLD_MS / 1000} s before the close, so this may have been a real sample`;
}

/** Decides which samples of a feed pass at once, and holds back the last one. */
export class CloseSampleGuard {
  private held: Sample | undefined;
  /** Changes whenever the held sample does, so that a late probe answer is not mistaken. */
  generation = 0;

  get holding(): boolean {
    return this.held !== undefined;
  }

  /** The samples that pass now, in order: the one held before, then all of the batch but its last, now held. */
  accept(batch: readonly Sample[]): Sample[] {
    if (batch.length === 0) return [];
    const out: Sample[] = this.held === undefined ? [] : [this.held];
    for (let i = 0; i < batch.length - 1; i++) out.push(batch[i] as Sample);
    this.held = batch[batch.length - 1];
    this.generation++;
    return out;
  }

  /** The held sample, taken out (to pass it on, or to leave it out). */
  take(): Sample | undefined {
    const sample = this.held;
    this.held = undefined;
    this.generation++;
    return sample;
  }
}

/**
 * True when the outlet of `uid` answers a discovery query for its uid on its service port. False
 * when it is gone: the port refuses (nothing listens there), or answers time probes twice while our
 * uid goes unanswered (another outlet has the port: a program that made a new one), or after
 * {@link PATIENCE_MS} of silence. A time probe alone would not do, for that second reason. The
 * queries go out from a socket connected to the port, which alone is told (ECONNREFUSED) that
 * nothing listens and gets the time answers; the uid's answers, sent to the port the query names,
 * reach a second socket from whichever address the outlet answers. An outlet handles the queries
 * of its port in order, so a live one answers the uid before the time probe sent after it.
 */
export async function outletAnswers(address: string, servicePort: number, uid: string): Promise<boolean> {
  const listener = dgram.createSocket('udp4');
  const prober = dgram.createSocket('udp4');
  listener.on('error', () => undefined);
  try {
    await new Promise<void>((resolve) => listener.bind(0, resolve));
    const queryId = String(Math.floor(Math.random() * 1e9));
    const query = `LSL:shortinfo\r\nuid=${xpathLiteral(uid)}\r\n${listener.address().port} ${queryId}\r\n`;
    const timeProbe = `LSL:timedata\r\n${queryId} 0\r\n`;
    const deadline = Date.now() + PATIENCE_MS;
    return await new Promise<boolean>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let timeAnswers = 0;
      let decided = false;
      const finish = (answered: boolean) => {
        if (decided) return;
        decided = true;
        clearTimeout(timer);
        resolve(answered);
      };
      listener.on('message', (message) => {
        const text = message.toString();
        if (text.slice(0, text.indexOf('\n')).trim() === queryId && text.includes(uid)) finish(true);
      });
      prober.on('message', (message) => {
        if (message.toString().trim().split(/\s+/)[0] !== queryId || ++timeAnswers < 2) return;
        // A live outlet's uid answers, sent before this one, may wait unread on the other socket
        // (a busy event loop finds both sockets ready at once and may read this one first): the
        // verdict waits until the poll phase has read them.
        setImmediate(() => {
          finish(false);
        });
      });
      // ECONNREFUSED (told to whichever call on the socket comes next: a receive or a send), or an
      // address that cannot be reached at all.
      const failed = (error: Error | null) => {
        if (error) finish(false);
      };
      prober.on('error', failed);
      const probe = () => {
        if (Date.now() >= deadline) {
          finish(false);
          return;
        }
        prober.send(query, failed);
        prober.send(timeProbe, failed);
        timer = setTimeout(probe, PROBE_INTERVAL_MS);
      };
      prober.once('connect', probe);
      prober.connect(servicePort, address);
    });
  } finally {
    listener.close();
    prober.close();
  }
}
