/**
 * Server-rendered HTML with escaping by default: every value interpolated into an `html` template
 * is escaped unless it is itself an `Html` (built by `html` or, for trusted output such as the
 * sanitised markdown renderer's, `trustedHtml`). Attribute values are always double-quoted in our
 * templates, and quotes are escaped too, so a value cannot leave its attribute.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** What a template may interpolate: false/null/undefined render nothing (for `${cond && html`…`}`). */
export type Renderable = Html | string | number | boolean | null | undefined | readonly Renderable[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function render(value: Renderable): string {
  if (value === null || value === undefined || typeof value === 'boolean') return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Renderable[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** Marks already-safe markup as such. Only for the output of our own sanitising renderers. */
export function trustedHtml(markup: string): Html {
  return new Html(markup);
}
