/**
 * The stream document editor of the Streams panel: CodeMirror checked against the API as it is
 * typed (yaml-editor.ts), which creates a new stream or replaces the one it edits. After a create it
 * goes on as the editor of the stream it made: checked as a create again, its document would be
 * refused for its id, now taken.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { parse } from 'yaml';
import { api, describe } from '../api';
import { type EditorHandle, mountEditor, type Problem } from '../yaml-editor';

/** The `meta.name` of a stream's YAML, when it has one. */
export function nameIn(yaml: string): string | undefined {
  try {
    const name = (parse(yaml) as { meta?: { name?: unknown } } | null)?.meta?.name;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

function template(): string {
  const id = crypto.randomUUID();
  return `id: ${id}
meta: { name: Sine to logger }
nodes:
  - id: gen
    executable: signal-generator
    config: { sampleRate: 250, amplitudes: [1, 0.5], frequencies: [10, 20], channels: 2 }
  - id: filter
    executable: filter
    config: { highpass: 1, lowpass: 40 }
  - id: log
    executable: logger
pipes:
  - { id: p1, source: gen, destination: filter }
  - { id: p2, source: filter, destination: log }
`;
}

/** The stream the editor replaces: its id, its YAML as stored, its name, and a line to show. */
export interface Editing {
  id: string;
  yaml: string;
  name?: string;
  note?: string;
}

export function Editor({
  editing,
  onSaved,
}: {
  /** The stream being replaced, or undefined for a new one. */
  editing: Editing | undefined;
  /** After a create (`created`) or a replace: the editor goes on with the stream as stored. */
  onSaved: (id: string, created: boolean) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const handle = useRef<EditorHandle | undefined>(undefined);
  const editingRef = useRef(editing);
  editingRef.current = editing;
  const [problems, setProblems] = useState<Problem[] | undefined>(undefined);
  const [message, setMessage] = useState('');
  useEffect(() => {
    if (host.current === null) return;
    // Replacing a stream keeps its id: "already exists" is the point, not a problem.
    handle.current = mountEditor(host.current, editing?.yaml ?? template(), setProblems, () =>
      editingRef.current === undefined ? [] : ['stream_exists'],
    );
    return () => {
      handle.current?.destroy();
    };
  }, []);
  useEffect(() => {
    // The verdict shown was the other document's: the new one is checked afresh.
    setProblems(undefined);
    handle.current?.setText(editing?.yaml ?? template());
    setMessage(editing?.note ?? '');
  }, [editing?.id, editing?.yaml]);
  const save = (): void => {
    const text = handle.current?.text() ?? '';
    setMessage('');
    const done =
      editing === undefined
        ? api<{ id: string }>('/stream/streams/yaml', {
            method: 'POST',
            body: text,
            contentType: 'text/yaml',
          })
        : api<{ id: string }>(`/stream/streams/${editing.id}`, {
            method: 'PUT',
            body: text,
            contentType: 'text/yaml',
          });
    done
      .then((answer) => {
        setMessage(editing === undefined ? `Created ${answer.id}.` : 'Saved.');
        onSaved(answer.id, editing === undefined);
      })
      .catch((e: unknown) => {
        setMessage(describe(e));
      });
  };
  return (
    <section class="card span2">
      <h2 data-testid="yaml-title">
        {editing === undefined ? 'New stream (YAML)' : `Edit ${editing.name ?? 'stream'}`}
        {editing !== undefined && <small class="muted"> {editing.id}</small>}
      </h2>
      <div ref={host} class="editor" data-testid="yaml-editor" />
      <p
        data-testid="yaml-verdict"
        class={problems !== undefined && problems.length > 0 ? 'error' : 'ok-text'}
      >
        {problems === undefined
          ? 'Checking…'
          : problems.length === 0
            ? editing === undefined
              ? 'The service accepts this document.'
              : 'The service accepts this document as the new version of the stream.'
            : problems.map((p) => `line ${p.line}: ${p.message}`).join('\n')}
      </p>
      <div class="row">
        <button type="button" data-testid="yaml-save" onClick={save}>
          {editing === undefined ? 'Create stream' : 'Replace stream'}
        </button>
        {message !== '' && <span data-testid="yaml-message">{message}</span>}
      </div>
    </section>
  );
}
