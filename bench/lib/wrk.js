/**
 * The HTTP load generator of the API figures: `wrk` (Debian package `wrk`, in .ci/run's package
 * list), a native client that takes little of the cores it shares with the server, as a user's
 * measurement would. `wrk -t2 -c20 -d{seconds}s --latency URL`: requests per second and the p50 /
 * p99 latency it prints.
 */
import { execFile } from 'node:child_process';

/** Seconds, from wrk's figures ("812.00us", "2.31ms", "1.02s"). */
function seconds(text) {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (match === null) return Number.NaN;
  const value = Number(match[1]);
  return value * { us: 1e-6, ms: 1e-3, s: 1, m: 60 }[match[2]];
}

/** Parses wrk's `--latency` report. */
export function parseWrk(output) {
  const perSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
  const at = (q) => seconds(new RegExp(`^\\s+${q}%\\s+(\\S+)`, 'm').exec(output)?.[1] ?? '') * 1000;
  const errors = /Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1];
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const failures =
    Number(errors ?? 0) +
    (socketErrors === null ? 0 : socketErrors.slice(1).reduce((s, n) => s + Number(n), 0));
  return { perSecond, p50: at(50), p99: at(99), failures };
}

/** Runs wrk against `url` for `durationS` seconds; resolves with its parsed figures. */
export function wrk(url, { threads = 2, connections = 20, durationS = 3 } = {}) {
  return new Promise((resolve, reject) => {
    execFile(
      'wrk',
      [`-t${threads}`, `-c${connections}`, `-d${durationS}s`, '--latency', url],
      { timeout: (durationS + 20) * 1000 },
      (error, stdout, stderr) => {
        if (error !== null) {
          reject(
            new Error(
              error.code === 'ENOENT'
                ? 'wrk is not installed (Debian: apt-get install wrk; .ci/run installs it)'
                : `wrk failed: ${stderr || error.message}`,
            ),
          );
          return;
        }
        resolve(parseWrk(stdout));
      },
    );
  });
}
