/**
 * Skills: `SKILLS_DIR/<name>/SKILL.md`, YAML front matter (`name` equal to the folder,
 * `description`) then the instructions. The name is checked against SKILL_NAME and the resolved
 * path against the skills folder (symlinks included) before anything is read.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { SKILL_NAME } from '@notetaker/contracts';
import { splitFrontMatter } from '@notetaker/front-matter';

const MAX_SKILL_BYTES = 256 * 1024;

export interface Skill {
  name: string;
  description: string;
  instructions: string;
}

/** A skill that cannot be used; the message is what the execution's resultSummary says. */
export class SkillError extends Error {}

/** The SKILL.md path for a valid name, or null when the name is not a skill name. */
function skillFile(skillsDir: string, name: string): string | null {
  if (!SKILL_NAME.test(name)) return null;
  const root = path.resolve(skillsDir);
  const file = path.resolve(root, name, 'SKILL.md');
  return file.startsWith(root + path.sep) ? file : null;
}

/** The real path of the skill file when it exists inside the (real) skills folder. */
async function containedFile(skillsDir: string, name: string): Promise<string | null> {
  const file = skillFile(skillsDir, name);
  if (!file) return null;
  try {
    const [realRoot, realFile] = await Promise.all([fs.realpath(skillsDir), fs.realpath(file)]);
    if (!realFile.startsWith(realRoot + path.sep)) return null;
    return (await fs.stat(realFile)).isFile() ? realFile : null;
  } catch {
    return null;
  }
}

export async function skillExists(skillsDir: string, name: string): Promise<boolean> {
  return (await containedFile(skillsDir, name)) !== null;
}

export async function loadSkill(skillsDir: string, name: string): Promise<Skill> {
  const file = await containedFile(skillsDir, name);
  if (!file) throw new SkillError(`Skill ${name} not found: no ${name}/SKILL.md in the skills folder`);
  const stat = await fs.stat(file);
  if (stat.size > MAX_SKILL_BYTES) throw new SkillError(`Skill ${name} is malformed: SKILL.md is over 256 KB`);
  return parseSkill(name, await fs.readFile(file, 'utf8'));
}

export function parseSkill(folderName: string, text: string): Skill {
  const bad = (why: string) => new SkillError(`Skill ${folderName} is malformed: ${why}`);
  const front = splitFrontMatter(text);
  if (front.kind === 'none') throw bad('SKILL.md must start with YAML front matter between --- lines');
  if (front.kind === 'invalid') throw bad(`the front matter is ${front.problem}`);
  const { name, description } = front.data;
  if (name !== folderName) throw bad(`front matter name must be "${folderName}" (the folder name)`);
  if (typeof description !== 'string' || description.trim() === '') throw bad('front matter needs a description');
  const instructions = front.body.trim();
  if (!instructions) throw bad('there are no instructions after the front matter');
  return { name: folderName, description: description.trim(), instructions };
}

/**
 * Skills read (and looked up) at most once a second per name: at a minute boundary thousands of
 * runs of one skill share one read, instead of queueing thousands of file reads in front of the
 * store's writes. An edited, added or removed SKILL.md is seen a second later.
 */
export class SkillCache {
  private readonly skills = new Map<string, { at: number; value: Promise<Skill> }>();
  private readonly found = new Map<string, { at: number; value: Promise<boolean> }>();

  constructor(
    readonly skillsDir: string,
    private readonly ttlMs = 1000,
  ) {}

  load(name: string): Promise<Skill> {
    return this.cached(this.skills, name, () => loadSkill(this.skillsDir, name));
  }

  exists(name: string): Promise<boolean> {
    return this.cached(this.found, name, () => skillExists(this.skillsDir, name));
  }

  private cached<T>(entries: Map<string, { at: number; value: Promise<T> }>, name: string, read: () => Promise<T>) {
    const now = Date.now();
    const hit = entries.get(name);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = read();
    value.catch(() => undefined); // each caller gets the rejection; none is left unhandled here
    if (entries.size > 1000) entries.clear();
    entries.set(name, { at: now, value });
    return value;
  }
}
