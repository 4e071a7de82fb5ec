/**
 * Just enough Markdown for the documentation checks: the relative links of a page and the anchors
 * its headings get (GitHub's rule), both with code blocks and code spans left out.
 */

export interface MarkdownLink {
  /** The link target as written, e.g. `api.md#frames`. */
  target: string;
  /** 1-based line of the link, for the failure message. */
  line: number;
}

/** The text with fenced code blocks blanked (lines kept, so line numbers stay right). */
function withoutFences(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

/** Inline links `[text](target)` that point into the repository (no scheme, not a bare anchor). */
export function relativeLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  withoutFences(text).forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, '');
    for (const match of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ target, line: i + 1 });
    }
  });
  return links;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor the page's headings define (a repeated heading gets `-1`, `-2`, … as on GitHub). */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = headingSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
