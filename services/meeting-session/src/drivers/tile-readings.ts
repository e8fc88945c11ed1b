/** Turns repeated readings of the participant tiles into changes: the same people read again is no change. */

/** What a page script read from the tiles: the names shown, and whether it told the bot's own tile. */
export interface TileReading {
  names: string[];
  selfFound: boolean;
}

/**
 * The people in the call, never the bot. The page script leaves out the bot's tile when the page
 * marks it (a marker, "You", "(You)"); an unmarked one shows the bot's name, so one tile of that
 * name is the bot (spacing and case aside: platforms tidy names their own way).
 */
export function peopleOf({ names, selfFound }: TileReading, botName: string): string[] {
  const people = [...names];
  if (!selfFound) {
    const self = people.findIndex((name) => nameKey(name) === nameKey(botName));
    if (self >= 0) people.splice(self, 1);
  }
  return people;
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
