/**
 * What the pages are built from: escaping templates, the markdown renderer that must never let a
 * transcript inject markup, the schedule preview in a task's time zone, and the small helpers
 * that decide redirects and download names.
 */
import { expect } from 'chai';
import { previewCron } from '../../src/web/cron-preview.js';
import { safeNext } from '../../src/web/guards.js';
import { html } from '../../src/web/html.js';
import { renderMarkdown, splitDocument } from '../../src/web/markdown.js';
import { contentDisposition } from '../../src/operations/transcripts.js';

describe('web rendering', () => {
  it('escapes every interpolated value, including inside attributes', () => {
    const name = `"><script>alert('x')</script>&`;
    // prettier-ignore
    const out = html`<input value="${name}"><p>${name}</p>${[name, 1]}${null}${false}`.value;
    expect(out).to.equal(
      '<input value="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"><p>&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</p>&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;1',
    );
    expect(html`<b>${html`<i>kept</i>`}</b>`.value).to.equal('<b><i>kept</i></b>');
  });

  it('renders a transcript as markdown without letting its words become markup', () => {
    const out = renderMarkdown(
      [
        '# Sync',
        '<script>alert(1)</script>',
        '**Mallory** (00:00:01): <img src=x onerror=alert(1)> [click](javascript:alert(1)) <a href="x" onclick="y">a</a>',
        '![tracker](https://evil.example/pixel.png) [fine](https://example.com/page)',
      ].join('\n\n'),
    ).value;
    expect(out).to.contain('<h1>Sync</h1>');
    expect(out).to.contain('<strong>Mallory</strong>');
    // The only tags are the renderer's own; every attribute is one it wrote.
    const tags = new Set([...out.matchAll(/<\/?([a-z0-9]+)/gi)].map((m) => m[1].toLowerCase()));
    expect([...tags].sort()).to.deep.equal(['a', 'h1', 'p', 'strong']);
    const attributes = [...out.matchAll(/<[a-z0-9]+\s([^>]*)>/gi)].map((m) => m[1]);
    for (const attrs of attributes)
      expect(attrs).to.match(/^href="https:\/\/[^"]+" rel="nofollow noopener noreferrer"$/);
    expect(out).not.to.match(/href="javascript/i);
    expect(out).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).to.contain('<a href="https://example.com/page" rel="nofollow noopener noreferrer">fine</a>');
    // An image is a plain link: the page never loads anything from another host.
    expect(out).to.contain('<a href="https://evil.example/pixel.png" rel="nofollow noopener noreferrer">tracker</a>');
  });

  it('splits off the front matter of a saved transcript', () => {
    const { fields, body } = splitDocument(
      '---\ntitle: "Q3 \\"plan\\""\nmeetingId: meeting_1\nstatus: completed\nparticipants:\n  - Ann\n---\n\n# Q3\n',
    );
    expect(fields).to.include({ title: 'Q3 "plan"', meetingId: 'meeting_1', status: 'completed' });
    expect(body).to.equal('\n# Q3\n');
  });

  it('previews the next runs of a schedule in the task’s time zone, across a DST change', () => {
    // 2025-03-28 is the Friday before Paris moves to summer time (Sunday 30 March).
    const from = Date.parse('2025-03-27T12:00:00Z');
    const preview = previewCron('0 9 * * *', 'europe/paris', 5, from);
    if (!preview.ok) throw new Error(preview.error);
    expect(preview.timezone).to.equal('Europe/Paris');
    expect(preview.runs.map((r) => r.iso)).to.deep.equal([
      '2025-03-28T08:00:00.000Z',
      '2025-03-29T08:00:00.000Z',
      '2025-03-30T07:00:00.000Z',
      '2025-03-31T07:00:00.000Z',
      '2025-04-01T07:00:00.000Z',
    ]);
    expect(preview.runs[0].local).to.match(/Fri.*28 Mar 2025.*09:00/);
  });

  it('names what is wrong with a schedule', () => {
    expect(previewCron('0 9 * *', 'UTC')).to.deep.include({ ok: false, field: 'cronExpression' });
    expect(previewCron('@daily', 'UTC')).to.deep.include({ ok: false, field: 'cronExpression' });
    expect(previewCron('0 9 * * *', 'Mars/Olympus')).to.deep.include({ ok: false, field: 'timezone' });
    expect(previewCron('0 99 * * *', 'UTC')).to.deep.include({ ok: false, field: 'cronExpression' });
  });

  it('comes back after sign-in only to a page of this site', () => {
    expect(safeNext('/tasks?x=1')).to.equal('/tasks?x=1');
    for (const bad of [
      '//evil.example',
      '/\\evil.example',
      'https://evil.example',
      '/signin',
      '/signout',
      'tasks',
      '/a\nb',
    ]) {
      expect(safeNext(bad), bad).to.equal(null);
    }
  });

  it('names a download in ASCII and exactly in UTF-8', () => {
    expect(contentDisposition('März 3rd - "Plan".md')).to.equal(
      `attachment; filename="M_rz 3rd - _Plan_.md"; filename*=UTF-8''M%C3%A4rz%203rd%20-%20%22Plan%22.md`,
    );
  });
});
