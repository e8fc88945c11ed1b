/**
 * Markdown documents rendered for reading. A transcript carries words anyone in a meeting said, so
 * nothing in it may become markup of ours: raw HTML is shown as text, links keep only http(s),
 * mailto and in-page targets, and images become plain links (no request to another host). The
 * CSP forbids inline script anyway; this makes sure nothing else gets through either.
 */
import { Marked, type Tokens } from 'marked';
import { escapeHtml, trustedHtml, type Html } from './html.js';

function safeHref(href: string): boolean {
  const trimmed = href.trim();
  if (trimmed.startsWith('#')) return true;
  try {
    const url = new URL(trimmed);
    return ['http:', 'https:', 'mailto:'].includes(url.protocol);
  } catch {
    return false;
  }
}

const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      const text = escapeHtml(token.text);
      return 'block' in token && token.block ? `<p>${text.trim()}</p>\n` : text;
    },
    link(token: Tokens.Link): string {
      const text = this.parser.parseInline(token.tokens);
      if (!safeHref(token.href)) return text;
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : '';
      return `<a href="${escapeHtml(token.href.trim())}"${title} rel="nofollow noopener noreferrer">${text}</a>`;
    },
    image(token: Tokens.Image): string {
      const label = escapeHtml(token.text || token.href);
      if (!safeHref(token.href)) return label;
      return `<a href="${escapeHtml(token.href.trim())}" rel="nofollow noopener noreferrer">${label}</a>`;
    },
  },
});

export function renderMarkdown(source: string): Html {
  return trustedHtml(marked.parse(source) as string);
}

export interface FrontMatterSplit {
  /** Top-level `key: value` lines of the front matter, unquoted; lists are left as written. */
  fields: Record<string, string>;
  body: string;
}

/** Splits off YAML front matter; the body is what gets rendered. */
export function splitFrontMatter(text: string): FrontMatterSplit {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return { fields: {}, body: text };
  const fields: Record<string, string> = {};
  for (const line of match[1].split(/\r?\n/)) {
    const kv = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(line);
    if (kv) fields[kv[1]] = unquote(kv[2].trim());
  }
  return { fields, body: text.slice(match[0].length) };
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      return JSON.parse(value) as string;
    } catch {
      return value.slice(1, -1);
    }
  }
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replace(/''/g, "'");
  return value;
}
