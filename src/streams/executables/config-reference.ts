/**
 * The reference of the built-ins' configs in Markdown (docs/builtins.md), written from their
 * config schemas (builtins.ts): fields, types, defaults, ranges and descriptions come from the
 * schemas that validate the configs, so the page cannot say what the service does not check.
 * A test compares the page with this output.
 */
import type { TSchema } from 'typebox';
import { BUILTINS, type BuiltinDescriptor } from './builtins.js';

interface FieldSchema {
  type?: string;
  const?: unknown;
  anyOf?: readonly FieldSchema[];
  enum?: readonly unknown[];
  items?: FieldSchema;
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
}

function code(value: unknown): string {
  return `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
}

function typeOf(field: FieldSchema): string {
  // A choice of forms (`average` or a list of names; a pair or null): each form, in order.
  if (field.anyOf !== undefined) return field.anyOf.map(typeOf).join(' or ');
  if (field.const !== undefined) return code(field.const);
  if (field.type === 'array' && field.items?.anyOf !== undefined) {
    return `array of ${field.items.anyOf.map((item) => `${typeOf(item)}s`).join(' or ')}`;
  }
  if (field.enum !== undefined) return typeof field.enum[0] === 'number' ? 'number' : 'string';
  if (field.type === 'array') return `array of ${typeOf(field.items ?? {})}s`;
  return field.type ?? 'any';
}

/** The limits of one value: a range, lengths, or the allowed values. */
function limitsOf(field: FieldSchema, what = ''): string[] {
  const out: string[] = [];
  if (field.anyOf !== undefined) return field.anyOf.flatMap((form) => limitsOf(form, what));
  if (field.enum !== undefined) out.push(`${what}one of ${field.enum.map(code).join(', ')}`);
  const low =
    field.minimum !== undefined
      ? `${field.minimum}`
      : field.exclusiveMinimum !== undefined
        ? `> ${field.exclusiveMinimum}`
        : undefined;
  const exclusive = low?.startsWith('>') === true;
  if (low !== undefined && field.maximum !== undefined) {
    out.push(exclusive ? `${what}${low}, ≤ ${field.maximum}` : `${what}${low} to ${field.maximum}`);
  } else if (low !== undefined) out.push(exclusive ? `${what}${low}` : `${what}≥ ${low}`);
  else if (field.maximum !== undefined) out.push(`${what}≤ ${field.maximum}`);
  const span = (min: number | undefined, max: number | undefined, unit: string): string | undefined => {
    if (min === undefined && max === undefined) return undefined;
    if (max === undefined) return `at least ${min} ${unit}${min === 1 ? '' : 's'}`;
    return `${min ?? 0} to ${max} ${unit}s`;
  };
  const characters = span(field.minLength, field.maxLength, 'character');
  if (characters !== undefined) out.push(`${what}${characters}`);
  if (field.type === 'array') {
    const items = span(field.minItems, field.maxItems, 'item');
    if (items !== undefined) out.push(items);
    out.push(...limitsOf(field.items ?? {}, 'each '));
  }
  return out;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function section(builtin: BuiltinDescriptor): string {
  const schema = builtin.configSchema as TSchema & {
    properties: Record<string, FieldSchema>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  const ports = [
    ...builtin.inputs.map((p) => `input ${code(p)}`),
    ...builtin.outputs.map((p) => `output ${code(p)}`),
  ];
  const lines = [
    `### \`${builtin.name}\` (${builtin.role})`,
    '',
    `${builtin.description} Ports: ${ports.join(', ')}.` +
      (builtin.aliases.length > 0
        ? ` Reference command lines naming ${builtin.aliases.map(code).join(', ')} run it too.`
        : ''),
    '',
    '| field | type | required | default | allowed | meaning |',
    '|---|---|---|---|---|---|',
  ];
  for (const [name, field] of Object.entries(schema.properties)) {
    lines.push(
      `| ${[
        code(name),
        typeOf(field),
        required.has(name) ? 'yes' : 'no',
        field.default === undefined ? '' : code(field.default),
        limitsOf(field).join('; '),
        field.description ?? '',
      ]
        .map(cell)
        .join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

/** The generated part of docs/builtins.md. */
export function builtinConfigReference(builtins: readonly BuiltinDescriptor[] = BUILTINS): string {
  return `${builtins.map(section).join('\n\n')}\n`;
}
