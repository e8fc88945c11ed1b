/** Turns repeated readings of the participant tiles into changes: the same people read again is no change. */

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
