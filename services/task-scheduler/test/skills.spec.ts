import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadSkill, parseSkill, skillExists, SkillError } from '../src/skills.js';

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(SkillError);
    return (err as Error).message;
  }
  throw new Error('expected a SkillError');
}

describe('skills', () => {
  let dir: string;
  let outside: string;
  const write = (name: string, text: string) => {
    fs.mkdirSync(path.join(dir, name), { recursive: true });
    fs.writeFileSync(path.join(dir, name, 'SKILL.md'), text);
  };

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skills-'));
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'outside-'));
    write('good-skill', '---\nname: good-skill\ndescription: Does good things\n---\nDo the good thing.\n');
    write('no-front-matter', 'Just instructions\n');
    write('wrong-name', '---\nname: other\ndescription: x\n---\nBody\n');
    write('no-description', '---\nname: no-description\n---\nBody\n');
    write('bad-yaml', '---\nname: [unclosed\n---\nBody\n');
    write('empty-body', '---\nname: empty-body\ndescription: d\n---\n\n');
    fs.mkdirSync(path.join(outside, 'escape'));
    fs.writeFileSync(path.join(outside, 'escape', 'SKILL.md'), '---\nname: escape\ndescription: d\n---\nEvil\n');
    fs.symlinkSync(path.join(outside, 'escape'), path.join(dir, 'escape'));
  });
  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('reads front matter and instructions', async () => {
    expect(await loadSkill(dir, 'good-skill')).to.deep.equal({
      name: 'good-skill',
      description: 'Does good things',
      instructions: 'Do the good thing.',
    });
    expect(await skillExists(dir, 'good-skill')).to.equal(true);
  });

  it('says clearly what is wrong with a malformed skill', async () => {
    expect(await refusal(loadSkill(dir, 'no-front-matter'))).to.contain('must start with YAML front matter');
    expect(await refusal(loadSkill(dir, 'wrong-name'))).to.contain('name must be "wrong-name"');
    expect(await refusal(loadSkill(dir, 'no-description'))).to.contain('needs a description');
    expect(await refusal(loadSkill(dir, 'bad-yaml'))).to.contain('not valid YAML');
    expect(await refusal(loadSkill(dir, 'empty-body'))).to.contain('no instructions');
  });

  it('checks the name before building a path, and the real path after', async () => {
    for (const name of ['../etc', 'Good-Skill', 'a--b', '-a', '', 'a/b', '.']) {
      expect(await skillExists(dir, name), name).to.equal(false);
    }
    // A symlinked folder that leads out of the skills folder is not a skill.
    expect(await skillExists(dir, 'escape')).to.equal(false);
    expect(await refusal(loadSkill(dir, 'escape'))).to.contain('not found');
    expect(await skillExists(dir, 'missing')).to.equal(false);
  });

  it('ships two well-formed skills', async () => {
    for (const name of ['daily-meeting-digest', 'latest-meeting-action-items']) {
      const skill = await loadSkill(path.resolve('skills'), name);
      expect(skill.description.length).to.be.greaterThan(20);
      expect(skill.instructions).to.contain('write_project_document');
    }
  });

  it('parses CRLF files too', () => {
    const skill = parseSkill('crlf', '---\r\nname: crlf\r\ndescription: d\r\n---\r\nBody\r\n');
    expect(skill.instructions).to.equal('Body');
  });
});
