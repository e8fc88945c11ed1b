import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ToolInputError, writeProjectDocument } from '../src/runner/project-files.js';

describe('writing a markdown document into a project', () => {
  let root: string;
  let docs: string;
  let outside: string;

  async function refused(projectId: string, relative: string, content = '# x'): Promise<string> {
    try {
      await writeProjectDocument(root, projectId, relative, content);
    } catch (err) {
      expect(err).to.be.instanceOf(ToolInputError);
      return (err as Error).message;
    }
    throw new Error(`expected ${relative} to be refused`);
  }

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'content-'));
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'outside-'));
    docs = path.join(root, 'deployed-md-files/docs');
    fs.mkdirSync(path.join(docs, 'acme/meetings'), { recursive: true });
    fs.mkdirSync(path.join(docs, 'other'), { recursive: true });
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('writes inside the project, creating folders, and replaces on a second write', async () => {
    const written = await writeProjectDocument(root, 'acme', 'digests/2025-01-31 daily digest.md', '# one');
    expect(written).to.equal('deployed-md-files/docs/acme/digests/2025-01-31 daily digest.md');
    await writeProjectDocument(root, 'acme', 'digests/2025-01-31 daily digest.md', '# two');
    expect(fs.readFileSync(path.join(docs, 'acme/digests/2025-01-31 daily digest.md'), 'utf8')).to.equal('# two');
    expect(fs.readdirSync(path.join(docs, 'acme/digests'))).to.deep.equal(['2025-01-31 daily digest.md']);
  });

  it('refuses paths that leave the project or are not markdown', async () => {
    expect(await refused('acme', '../other/x.md')).to.contain('not allowed');
    expect(await refused('acme', '/etc/x.md')).to.contain('not allowed');
    expect(await refused('acme', 'a/../../x.md')).to.contain('not allowed');
    expect(await refused('acme', '.hidden.md')).to.contain('not allowed');
    expect(await refused('acme', 'notes.txt')).to.contain('.md');
    expect(await refused('acme', 'a/b/c/d/e.md')).to.contain('at most 3 folders');
    expect(await refused('acme', 'meetings/fake.md')).to.contain('meetings/');
    expect(await refused('../acme', 'x.md')).to.contain('project id');
    expect(await refused('nope', 'x.md')).to.contain('does not exist');
  });

  it('refuses to follow a symlink out of the project', async () => {
    fs.symlinkSync(outside, path.join(docs, 'acme/linked'));
    expect(await refused('acme', 'linked/x.md')).to.contain('leaves the project');
    fs.symlinkSync(outside, path.join(docs, 'escaped'));
    expect(await refused('escaped', 'x.md')).to.contain('outside the content folder');
    fs.symlinkSync(path.join(outside, 'target.md'), path.join(docs, 'acme/link.md'));
    expect(await refused('acme', 'link.md')).to.contain('not a file');
    expect(fs.readdirSync(outside)).to.deep.equal([]);
  });
});
