/**
 * YAML front matter: a mapping between an opening `---` line and a closing `---` (or `...`) line
 * at the top of a markdown file, as transcript-store writes documents and skills are written. The
 * one reader of it for every service, on the `yaml` library (with its alias-expansion cap, so a
 * "billion laughs" cannot blow up a reader).
 */
import { parse } from 'yaml';

export type FrontMatter =
  /** No front matter (or no closing line): the whole text is the body. */
  | { kind: 'none'; body: string }
  /** Delimited, but not a YAML mapping; `problem` says why. */
  | { kind: 'invalid'; problem: string; body: string }
  | { kind: 'mapping'; data: Record<string, unknown>; body: string };

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m;

export function splitFrontMatter(text: string): FrontMatter {
  const opening = OPENING.exec(text);
  if (!opening) return { kind: 'none', body: text };
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) return { kind: 'none', body: text };
  const yaml = rest.slice(0, closing.index);
  const body = rest.slice(closing.index + closing[0].length);
  let data: unknown;
  try {
    data = parse(yaml, { maxAliasCount: 100 });
  } catch (err) {
    return { kind: 'invalid', problem: `not valid YAML (${(err as Error).message.split('\n')[0]})`, body };
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { kind: 'invalid', problem: 'not a mapping', body };
  }
  return { kind: 'mapping', data: data as Record<string, unknown>, body };
}

/** The mapping's scalar fields as text (lists and nested mappings left out): for display. */
export function textFields(data: Record<string, unknown>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      fields[key] = String(value);
  }
  return fields;
}
