/** The API path of one stream, or of a path below it (`rest`, e.g. `/status`). */
export function streamPath(id: string, rest = ''): string {
  return `/stream/streams/${encodeURIComponent(id)}${rest}`;
}
