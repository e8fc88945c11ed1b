/**
 * Markdown documents rendered for reading. A transcript carries words anyone in a meeting said, so
 * nothing in it may become markup of ours: raw HTML is shown as text, links keep only http(s),
 * mailto and in-page targets, and images become plain links (no request to another host). The
 * CSP forbids inline script anyway; this makes sure nothing else gets through either.
 */
import { Marked, type Tokens } from 'marked';
import { splitFrontMatter, textFields } from '@notetaker/front-matter';
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
  /** The front matter's scalar fields as text. */
  fields: Record<string, string>;
  body: string;
}

/** Splits off YAML front matter; the body is what gets rendered. */
export function splitDocument(text: string): FrontMatterSplit {
  const front = splitFrontMatter(text);
  return { fields: front.kind === 'mapping' ? textFields(front.data) : {}, body: front.body };
}
