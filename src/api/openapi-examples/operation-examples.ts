/**
 * The examples of one operation of the OpenAPI document: the type every file of this folder
 * writes, and openapi-examples.ts gathers (in a file of its own so that neither imports the other).
 */
export interface OperationExamples {
  readonly request?: unknown;
  readonly response?: unknown;
  /** Several answers of the first success code, each with what it illustrates (instead of `response`). */
  readonly namedResponses?: Readonly<Record<string, { summary: string; value: unknown }>>;
  readonly responses?: Readonly<Record<string, unknown>>;
  /** A WebSocket's: one message it sends (or, for an ingest socket, takes), shown in its 101 answer. */
  readonly message?: unknown;
}
