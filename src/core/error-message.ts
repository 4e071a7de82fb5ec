/**
 * The one way the service turns anything thrown into text for a person: an Error's message, a
 * thrown string as it is, and for anything else (a thrown object, undefined) "unknown error"
 * rather than "[object Object]".
 */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  if (typeof error === 'number' || typeof error === 'boolean' || typeof error === 'bigint')
    return String(error);
  return 'unknown error';
}
