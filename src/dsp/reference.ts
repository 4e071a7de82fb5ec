/**
 * Re-referencing and channel selection, as MNE's `raw.set_eeg_reference(ref_channels)` followed
 * by `raw.pick(names)` or `raw.drop_channels(names)`: every sample of every channel minus the mean,
 * at that sample, of the reference channels (all channels for `average`), then the output channels
 * taken in their order. The mean is summed in double precision, in channel order, as numpy does on
 * float64 data.
 */

/** What to re-reference to and which channels to keep; names in any case. */
export interface ReferenceSpec {
  reference?: 'average' | readonly string[];
  pick?: readonly string[];
  drop?: readonly string[];
}

export type ReferencePlan =
  | {
      ok: true;
      /** Input columns averaged into the reference; empty: no re-referencing. */
      referenceColumns: readonly number[];
      /** Input column of each output column. */
      outputColumns: readonly number[];
      outputNames: readonly string[];
    }
  | {
      ok: false;
      /** Pointer into the config to the name at fault. */
      path: string;
      message: string;
    };

/**
 * The columns a spec takes from frames with `channels`, or which configured name is not there.
 * Without `channels` (unknown) the plan is refused with an empty path and message.
 */
export function referencePlan(spec: ReferenceSpec, channels: readonly string[] | undefined): ReferencePlan {
  if (channels === undefined) return { ok: false, path: '', message: '' };
  const index = new Map<string, number>();
  channels.forEach((name, i) => {
    if (!index.has(name.toUpperCase())) index.set(name.toUpperCase(), i);
  });
  const columnsOf = (field: 'reference' | 'pick' | 'drop', names: readonly string[]) => {
    const columns: number[] = [];
    for (const [i, name] of names.entries()) {
      const column = index.get(name.toUpperCase());
      if (column === undefined) {
        return {
          path: `/${field}/${i}`,
          message: `'${name}' is not a channel of the input; its channels are ${channels.join(', ')} (any case)`,
        };
      }
      columns.push(column);
    }
    return columns;
  };

  let referenceColumns: number[] = [];
  if (spec.reference === 'average') referenceColumns = channels.map((_, i) => i);
  else if (spec.reference !== undefined) {
    const found = columnsOf('reference', spec.reference);
    if (!Array.isArray(found)) return { ok: false, ...found };
    referenceColumns = found;
  }
  let outputColumns = channels.map((_, i) => i);
  if (spec.pick !== undefined) {
    const found = columnsOf('pick', spec.pick);
    if (!Array.isArray(found)) return { ok: false, ...found };
    outputColumns = found;
  } else if (spec.drop !== undefined) {
    const found = columnsOf('drop', spec.drop);
    if (!Array.isArray(found)) return { ok: false, ...found };
    const dropped = new Set(found);
    outputColumns = outputColumns.filter((c) => !dropped.has(c));
  }
  return {
    ok: true,
    referenceColumns,
    outputColumns,
    outputNames: outputColumns.map((c) => channels[c] as string),
  };
}

/**
 * Applies a plan to row-major samples of `width` channels: `out[i][k] = in[i][outputColumns[k]] −
 * mean(in[i][referenceColumns])`, the mean in double precision.
 */
export function applyReference(
  plan: { referenceColumns: readonly number[]; outputColumns: readonly number[] },
  data: Float32Array,
  width: number,
): Float32Array {
  const rows = width === 0 ? 0 : data.length / width;
  const outWidth = plan.outputColumns.length;
  const out = new Float32Array(rows * outWidth);
  const refs = plan.referenceColumns;
  for (let i = 0; i < rows; i++) {
    const base = i * width;
    let ref = 0;
    if (refs.length > 0) {
      let sum = 0;
      for (const c of refs) sum += data[base + c] as number;
      ref = sum / refs.length;
    }
    for (let k = 0; k < outWidth; k++) {
      out[i * outWidth + k] = (data[base + (plan.outputColumns[k] as number)] as number) - ref;
    }
  }
  return out;
}
