/** `a, b or c`: the values a message or a help text offers, in prose. */
export function orList(items: readonly (string | number)[]): string {
  return items.length < 2 ? String(items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}
