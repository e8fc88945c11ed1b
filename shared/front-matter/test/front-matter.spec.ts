/** The one front-matter reader: documents, skills and the catalog's listing all go through it. */
import { expect } from 'chai';
import { splitFrontMatter, textFields } from '../src/front-matter.js';

describe('front matter', () => {
  it('splits the mapping from the body, with a BOM, CRLF lines or a `...` closing line', () => {
    for (const text of [
      '---\ntitle: Q3\n---\n# Body\n',
      '\ufeff---\r\ntitle: Q3\r\n---\r\n# Body\n',
      '---\ntitle: Q3\n...\n# Body\n',
    ]) {
      const front = splitFrontMatter(text);
      expect(front, JSON.stringify(text)).to.deep.include({ kind: 'mapping', data: { title: 'Q3' } });
      expect(front.body, JSON.stringify(text)).to.equal('# Body\n');
    }
  });

  it('treats a text without an opening or a closing line as all body', () => {
    expect(splitFrontMatter('# Title\n---\n')).to.deep.equal({ kind: 'none', body: '# Title\n---\n' });
    expect(splitFrontMatter('---\ntitle: x\n# never closed')).to.include({ kind: 'none' });
  });

  it('says why delimited front matter is not a mapping', () => {
    expect(splitFrontMatter('---\n- a\n- b\n---\nbody')).to.deep.equal({
      kind: 'invalid',
      problem: 'not a mapping',
      body: 'body',
    });
    const broken = splitFrontMatter('---\ntitle: [unclosed\n---\nbody');
    expect(broken.kind).to.equal('invalid');
    expect((broken as { problem: string }).problem).to.match(/^not valid YAML \(/);
  });

  it('refuses an alias bomb instead of expanding it', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 12; i++)
      lines.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    expect(splitFrontMatter(`---\n${lines.join('\n')}\n---\n`).kind).to.equal('invalid');
  });

  it('gives scalar fields as text for display', () => {
    expect(textFields({ title: 'T', segments: 3, done: true, participants: ['Ann'], nested: { a: 1 } })).to.deep.equal({
      title: 'T',
      segments: '3',
      done: 'true',
    });
  });
});
