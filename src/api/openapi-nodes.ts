/**
 * The node of a stream document as the OpenAPI document shows it: one variant per built-in, whose
 * `config` is that built-in's own config schema (the one that validates it, builtins.ts), and one
 * for any other executable, whose config is open. Requests are validated by the stream validator
 * (streams/stream-document.ts), which picks the config schema by `executable` the same way; this
 * schema only documents it.
 */
import { type TSchema, Type } from 'typebox';
import { BUILTINS, type BuiltinDescriptor } from '../streams/executables/builtins.js';
import { NodeSchema } from '../platform/schemas/stream.js';

const { executable: _executable, config: _config, ...common } = NodeSchema.properties;
const BUILTIN_NAMES = BUILTINS.map((b) => b.name);

function builtinNode(builtin: BuiltinDescriptor): TSchema {
  const config = {
    ...builtin.configSchema,
    description: `The config of ${builtin.name} (docs/builtins.md).`,
  } as TSchema;
  const needsConfig = ((builtin.configSchema as { required?: string[] }).required ?? []).length > 0;
  return Type.Object(
    {
      ...common,
      executable: Type.Literal(builtin.name, { description: builtin.description }),
      config: needsConfig ? config : Type.Optional(config),
    },
    { additionalProperties: false, title: `${builtin.name} node` },
  );
}

const externalNode = Type.Object(
  {
    ...common,
    executable: Type.String({
      minLength: 1,
      maxLength: 4096,
      not: { enum: BUILTIN_NAMES },
      description:
        "A program in an executables directory, with its arguments, possibly run by an interpreter (`python3 band_power.py`); docs/security.md says which command lines run. A reference command line naming a built-in's file (`node /usr/share/engines/worker-scripts/SignalGenerator.js`) runs that built-in instead, and its config is checked as the built-in's.",
    }),
    config: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: 'Any object: handed to the program as is (docs/node-protocol.md).',
        },
      ),
    ),
  },
  { additionalProperties: false, title: 'node of an external executable' },
);

/**
 * The documented node, a component of the document (`#/components/schemas/Node`): exactly one
 * variant matches, chosen by `executable`.
 */
export const DocumentedNodeSchema: TSchema = Type.Unsafe({
  $id: 'Node',
  oneOf: [...BUILTINS.map(builtinNode), externalNode],
  description:
    "A node. `executable` chooses its config: a built-in's own fields (docs/builtins.md), or any object for a program of your own.",
});

const NODE_REF = Type.Ref('Node');

/**
 * A copy of `value` with every occurrence of the node schema (by identity) replaced by a reference
 * to the documented one; parts without it are shared, not copied.
 */
export function withDocumentedNodes(value: unknown): unknown {
  if (value === NodeSchema) return NODE_REF;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const items = value.map(withDocumentedNodes);
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const replaced = withDocumentedNodes(inner);
    if (replaced !== inner) changed = true;
    out[key] = replaced;
  }
  return changed ? out : value;
}
