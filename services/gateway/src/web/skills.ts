/**
 * The skills a task can run, for the task form's picker: the folders of SKILLS_DIR that hold a
 * SKILL.md, under valid skill names, with the description from its front matter. Only names read
 * from the folder itself are used; the task-scheduler checks the choice again when the task is
 * created.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { SKILL_NAME } from '@notetaker/contracts';
import { splitFrontMatter, textFields } from '@notetaker/front-matter';

export interface SkillChoice {
  name: string;
  description: string;
}

/** Only the head of SKILL.md is read: the front matter is at the top. */
const HEAD_BYTES = 4096;

export async function listSkills(skillsDir: string): Promise<SkillChoice[] | null> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(skillsDir, { withFileTypes: true });
  } catch {
    return null;
  }
  const skills: SkillChoice[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || !SKILL_NAME.test(entry.name)) continue;
    const head = await readHead(path.join(skillsDir, entry.name, 'SKILL.md'));
    if (head === null) continue;
    skills.push({ name: entry.name, description: descriptionOf(head) });
  }
  return skills.sort((a, b) => a.name.localeCompare(b.name));
}

async function readHead(file: string): Promise<string | null> {
  let handle: fs.FileHandle | null = null;
  try {
    handle = await fs.open(file, 'r');
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } catch {
    return null;
  } finally {
    await handle?.close();
  }
}

function descriptionOf(head: string): string {
  const front = splitFrontMatter(head);
  const description = front.kind === 'mapping' ? (textFields(front.data).description ?? '').trim() : '';
  return description.length > 160 ? `${description.slice(0, 157)}…` : description;
}
