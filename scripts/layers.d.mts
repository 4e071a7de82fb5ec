/** Types of layers.mjs, for the TypeScript tests that read the table. */
export interface Layer {
  name: string;
  folders: string[];
  holds: string;
}
export const LAYERS: readonly Layer[];
export const COMPOSER: string;
export const ENTRY_POINTS: readonly string[];
export function unitOf(path: string): string | undefined;
export function layerOf(unit: string): number | undefined;
export function refusal(from: string, to: string): string | undefined;
export function picture(): string;
export const SPLIT_FOLDERS: readonly string[];
export function siblingRefusal(from: string, to: string): string | undefined;
export const WEB_TYPE_SOURCES: readonly string[];
export function webRefusal(to: string, typeOnly: boolean): string | undefined;
