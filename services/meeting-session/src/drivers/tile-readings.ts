/** Turns repeated readings of the participant tiles into changes: the same people read again is no change. */

/**
 * What a page script read from the tiles: the names shown, whether it told the bot's own tile, and
 * the names (cleaned the same way, each once) of the tiles showing the platform's speaking indicator.
 */
export interface TileReading {
  names: string[];
  selfFound: boolean;
  speaking: string[];
}

/**
 * The people in the call, never the bot. The page script leaves out the bot's tile when the page
 * marks it (a marker, "You", "(You)"); an unmarked one shows the bot's name, so one tile of that
 * name is the bot (spacing and case aside: platforms tidy names their own way).
 */
export function peopleOf({ names, selfFound }: Pick<TileReading, 'names' | 'selfFound'>, botName: string): string[] {
  const people = [...names];
  if (!selfFound) {
    const self = people.findIndex((name) => nameKey(name) === nameKey(botName));
    if (self >= 0) people.splice(self, 1);
  }
  return people;
}

/**
 * Who speaks now, never the bot: as in peopleOf, a bot tile the page could not tell apart shows
 * the bot's name, so that name is dropped, unless another tile of the same name is in the call
 * (the bot is muted: the one speaking is that person).
 */
export function speakersOf({ names, selfFound, speaking }: TileReading, botName: string): string[] {
  if (selfFound) return [...speaking];
  const bot = nameKey(botName);
  const tilesNamedLikeBot = names.filter((name) => nameKey(name) === bot).length;
  return tilesNamedLikeBot > 1 ? [...speaking] : speaking.filter((name) => nameKey(name) !== bot);
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
