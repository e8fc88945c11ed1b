/**
 * Participant lists -> joined/left. Drivers report the whole list of names whenever it changes;
 * two people may share a name, so the lists are compared as multisets. Participants that are
 * other bots (bot-names.ts) are in the lists, but not among the people.
 */
export interface RosterChange {
  joined: string[];
  left: string[];
}

export class Roster {
  private current: string[] = [];
  /** Every name seen since the start, in order of first appearance. */
  readonly everSeen: string[] = [];

  constructor(readonly isBot: (name: string) => boolean = () => false) {}

  get count(): number {
    return this.current.length;
  }

  /** The participants who are people, not bots: who the bot stays for. */
  get people(): number {
    return this.current.filter((name) => !this.isBot(name)).length;
  }

  /** The participants who are bots, in the list's order. */
  get bots(): string[] {
    return this.current.filter((name) => this.isBot(name));
  }

  update(names: string[]): RosterChange {
    const before = counts(this.current);
    const after = counts(names);
    const joined: string[] = [];
    const left: string[] = [];
    for (const [name, n] of after) for (let i = before.get(name) ?? 0; i < n; i++) joined.push(name);
    for (const [name, n] of before) for (let i = after.get(name) ?? 0; i < n; i++) left.push(name);
    this.current = [...names];
    for (const name of joined) if (!this.everSeen.includes(name)) this.everSeen.push(name);
    return { joined, left };
  }
}

function counts(names: string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const name of names) map.set(name, (map.get(name) ?? 0) + 1);
  return map;
}
