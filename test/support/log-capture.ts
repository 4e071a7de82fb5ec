/** A pino logger that keeps what the service logs, one parsed record (a JSON object) per line. */
import { Writable } from 'node:stream';
import pino, { type Level, type Logger } from 'pino';

export function capturingLogger(records: Record<string, unknown>[], level: Level = 'warn'): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n'))
        if (line !== '') records.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return pino({ level }, sink);
}
