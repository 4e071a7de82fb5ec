/**
 * A port nothing listens on, for a test that must name a port before something binds it (a
 * stream definition stored now and started later, a node told its port, a client sent to an
 * address where nothing listens).
 *
 * Chosen below the system's ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range), so
 * that no `listen(0)` of the run's other files (their services, websocket nodes, clients) can be
 * handed it between the choice and its use: a port taken with `listen(0)` and released was handed
 * to someone else once in a full run, and the test's stream found its port in use.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';

/** Ports below this are left alone: the LSL ports (16571–16604), OSC's 9000, the system's own. */
const LOWEST = 20_000;

/** The first port of the ephemeral range; Linux's default when it cannot be read or lies too low. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > LOWEST + 1000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => {
      resolve(false);
    });
    server.listen(port, '127.0.0.1', () =>
      server.close(() => {
        resolve(true);
      }),
    );
  });
}

export async function unusedPort(): Promise<number> {
  const high = ephemeralLow();
  for (let tries = 0; tries < 50; tries++) {
    const port = LOWEST + Math.floor(Math.random() * (high - LOWEST));
    if (await bindable(port)) return port;
  }
  throw new Error(`no port of ${LOWEST}–${high - 1} was free in 50 tries`);
}

/**
 * The TCP ports process `pid` listens on (IPv4 and IPv6), from the kernel's socket tables and the
 * process's file descriptors. Whether a port is closed is asked of the process that held it, not by
 * connecting: a port released is handed by the next `listen(0)` of the run's other files, and a
 * connection then reaches their server.
 */
export function listeningPorts(pid: number): Set<number> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match !== null) inodes.add(match[1] as string);
    } catch {
      // closed between the listing and the read
    }
  }
  const ports = new Set<number>();
  for (const table of ['tcp', 'tcp6']) {
    const rows = readFileSync(`/proc/${pid}/net/${table}`, 'utf8').trim().split('\n').slice(1);
    for (const row of rows) {
      const fields = row.trim().split(/\s+/);
      // local_address is ADDR:PORT in hex, st 0A is LISTEN, the inode is the tenth field.
      if (fields[3] === '0A' && inodes.has(fields[9] as string)) {
        ports.add(Number.parseInt((fields[1] as string).split(':')[1] as string, 16));
      }
    }
  }
  return ports;
}
