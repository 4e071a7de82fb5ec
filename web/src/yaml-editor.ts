/**
 * The stream document editor: CodeMirror 6 with YAML highlighting and a linter that sends the text
 * to the API's dry run (POST /stream/streams/validate) as the user types, and shows each error the
 * API answers at its line. YAML errors carry their line; errors of the document carry a JSON
 * pointer (`/nodes/1/config/lowpass`), placed at that value in the text (or, for a missing field,
 * at the deepest part of the pointer the text has).
 */
import { yaml as yamlLanguage } from '@codemirror/lang-yaml';
import { type Diagnostic, forceLinting, linter, lintGutter } from '@codemirror/lint';
import type { Text } from '@codemirror/state';
import { basicSetup, EditorView } from 'codemirror';
import { isMap, isPair, isScalar, isSeq, type Node as YamlNode, parseDocument } from 'yaml';
import { ApiError, request } from './api';

export interface Problem {
  /** 1-based. */
  line: number;
  message: string;
  from: number;
  to: number;
}

/** The text range of the value a JSON pointer names, or of its deepest part present. */
export function pointerRange(text: string, pointer: string): [number, number] {
  const doc = parseDocument(text);
  const keys = pointer
    .split('/')
    .slice(1)
    .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: unknown = doc.contents;
  let range: [number, number] = [
    0,
    Math.min(text.length, text.indexOf('\n') < 0 ? text.length : text.indexOf('\n')),
  ];
  const rangeOf = (n: unknown): [number, number] | undefined => {
    const r = (n as YamlNode | null)?.range;
    return r === undefined || r === null ? undefined : [r[0], r[1]];
  };
  range = rangeOf(node) ?? range;
  for (const key of keys) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key);
      if (pair === undefined) break;
      range = rangeOf(pair.value) ?? rangeOf(pair.key) ?? range;
      // A value spanning lines is marked at its key: the line the user reads as "that field".
      const keyRange = rangeOf(pair.key);
      if (keyRange !== undefined && (isMap(pair.value) || isSeq(pair.value))) range = keyRange;
      node = pair.value;
    } else if (isSeq(node)) {
      const item = node.items[Number(key)];
      if (item === undefined) break;
      range = rangeOf(item) ?? range;
      node = item;
    } else {
      break;
    }
  }
  return range;
}

function lineRange(doc: Text, line: number): [number, number] {
  const l = doc.line(Math.max(1, Math.min(doc.lines, line)));
  return [l.from, l.to];
}

/** The API's verdict on a document, as problems at their places; [] when it is valid. */
export async function validate(
  text: string,
  doc: Text,
  ignoreCodes: readonly string[] = [],
): Promise<Problem[]> {
  try {
    await request('/stream/streams/validate', { method: 'POST', body: text, contentType: 'text/yaml' });
    return [];
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (ignoreCodes.includes(error.code)) return [];
    const d = error.details;
    const entries =
      d.errors !== undefined && d.errors.length > 0
        ? d.errors
        : [{ path: d.path, message: error.message, line: d.line }];
    return entries.map((entry) => {
      const [from, to] =
        entry.line !== undefined
          ? lineRange(doc, entry.line)
          : entry.path !== undefined
            ? pointerRange(text, entry.path)
            : d.line !== undefined
              ? lineRange(doc, d.line)
              : [0, 0];
      const safeFrom = Math.min(from, doc.length);
      const safeTo = Math.max(safeFrom, Math.min(to, doc.length));
      return { line: doc.lineAt(safeFrom).number, message: entry.message, from: safeFrom, to: safeTo };
    });
  }
}

export interface EditorHandle {
  view: EditorView;
  text(): string;
  setText(text: string): void;
  destroy(): void;
}

/** Mounts the editor; `onProblems` hears every verdict (for a summary beside the editor). */
export function mountEditor(
  parent: HTMLElement,
  initial: string,
  onProblems: (problems: Problem[]) => void,
  ignoreCodes: () => readonly string[],
): EditorHandle {
  const check = linter(
    async (view): Promise<Diagnostic[]> => {
      const doc = view.state.doc;
      const text = doc.toString();
      let problems: Problem[];
      try {
        problems = await validate(text, doc, ignoreCodes());
      } catch (error) {
        problems = [{ line: 1, from: 0, to: 0, message: `Could not reach the service: ${String(error)}` }];
      }
      // A verdict on a document that was replaced meanwhile (the stream as stored after a create)
      // is not this document's: the check of the new one, already scheduled, answers instead.
      if (view.state.doc !== doc) return [];
      onProblems(problems);
      return problems.map((p) => ({ from: p.from, to: p.to, severity: 'error', message: p.message }));
    },
    { delay: 350 },
  );
  const view = new EditorView({
    doc: initial,
    parent,
    extensions: [basicSetup, yamlLanguage(), lintGutter(), check, EditorView.lineWrapping],
  });
  return {
    view,
    text: () => view.state.doc.toString(),
    setText: (text) => {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      forceLinting(view);
    },
    destroy: () => {
      view.destroy();
    },
  };
}
