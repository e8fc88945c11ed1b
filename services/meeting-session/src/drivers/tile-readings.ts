/** Turns repeated readings of the participant tiles into changes: the same people read again is no change. */

/**
 * What a page script read from the tiles: the names shown (null: the page shows no list of them
 * now, Zoom's participants panel shut), whether it told the bot's own tile, and the look of every
 * other tile (or participants-list entry), by the name it shows (lookOf in
 * page-scripts/dom-helpers.ts; who speaks is learned from them: transcription/speaker-learner.ts).
 */
export interface TileReading {
  names: string[] | null;
  selfFound: boolean;
  looks: Array<{ name: string; look: string[] }>;
}

/** One tile's look, `key` telling apart two tiles (or a tile and a list entry) of one name. */
export interface TileLook {
  key: string;
  name: string;
  look: string[];
}

/**
 * The people in the call, never the bot. The page script leaves out the bot's tile when the page
 * marks it (a marker, "You", "(You)"); an unmarked one shows the bot's name, so one tile of that
 * name is the bot (spacing and case aside: platforms tidy names their own way).
 */
export function peopleOf({ names, selfFound }: Pick<TileReading, 'names' | 'selfFound'>, botName: string): string[] {
  const people = [...(names ?? [])];
  if (!selfFound) {
    const self = people.findIndex((name) => nameKey(name) === nameKey(botName));
    if (self >= 0) people.splice(self, 1);
  }
  return people;
}

/**
 * The tiles' looks, never the bot's: a bot tile the page did not tell apart (as in peopleOf; on
 * Zoom, its video tile, whose footer shows the bare name) shows the bot's name, so that name's
 * tiles are left out, unless a person in the call has the bot's name too: then they are kept, and
 * the bot's own tile never lights (it is muted).
 */
export function looksOf({ names, selfFound, looks }: TileReading, botName: string): TileLook[] {
  const bot = nameKey(botName);
  const keepBotNamed = (names ?? []).filter((name) => nameKey(name) === bot).length > (selfFound ? 0 : 1);
  const seen = new Map<string, number>();
  return looks
    .filter(({ name }) => keepBotNamed || nameKey(name) !== bot)
    .map(({ name, look }) => {
      const n = seen.get(name) ?? 0;
      seen.set(name, n + 1);
      return { key: `${name}#${n}`, name, look };
    });
}

const nameKey = (name: string) => name.replace(/\s+/g, ' ').trim().toLowerCase();

export class TileReadings {
  private last: string | null = null;
  /** The names of the last reading. */
  names: string[] | null = null;

  /** The sorted names if they differ from the last reading, else null. */
  update(names: string[]): string[] | null {
    // Tiles reorder as people speak; order carries no meaning, so only the set counts.
    const sorted = [...names].sort((a, b) => a.localeCompare(b));
    const key = JSON.stringify(sorted);
    if (key === this.last) return null;
    this.last = key;
    this.names = sorted;
    return sorted;
  }
}
