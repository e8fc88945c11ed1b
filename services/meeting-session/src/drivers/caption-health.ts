/**
 * Whether a live bot can read what is said. Platforms change their markup without notice; a
 * reader that no longer understands it reads nothing, which looks exactly like a silent meeting.
 * The difference is the caption area: in a silent meeting it stays still, while unreadable
 * captions keep changing it. So, while live:
 * - `captions_unreadable`: captions are on, the caption area changed at least MIN_CHANGES times,
 *   and no caption text was read for `blindAfterMs`; cleared by the next text read;
 * - `captions_unavailable`: captions have not come on for `blindAfterMs` (no control found, or
 *   pressing it does nothing); cleared once they are on.
 * These two are the only warnings it raises or clears: `caption_language_unavailable` (the language
 * asked for cannot be selected, caption-language.ts) is about what the captions say, not whether
 * they are read, and stays raised for the rest of the meeting.
 */
import type { CaptionWarning } from '@notetaker/contracts';
import type { SnapshotNode } from './driver.js';

/** Changes of the caption area that count as "keeps changing" (one is a layout settling). */
const MIN_CHANGES = 3;

export interface HealthReading {
  now: number;
  captionsOn: boolean;
  /** The page's running count of changes inside the caption area. */
  areaChanges: number;
  /** Whether any caption text was read since the last reading. */
  textRead: boolean;
}

/** The warnings caption health owns. */
export type HealthWarning = Extract<CaptionWarning, 'captions_unreadable' | 'captions_unavailable'>;

export interface HealthChange {
  warning: HealthWarning;
  raised: boolean;
  seen: string;
}

export class CaptionHealth {
  private lastTextAt: number | null = null;
  private changesAtText = 0;
  private offSince: number | null = null;
  private readonly active = new Set<HealthWarning>();

  constructor(private readonly blindAfterMs: number) {}

  get warnings(): HealthWarning[] {
    return [...this.active];
  }

  /** One reading of a live page; the warnings it raises or clears. */
  observe({ now, captionsOn, areaChanges, textRead }: HealthReading): HealthChange[] {
    const changes: HealthChange[] = [];
    if (this.lastTextAt === null || textRead) {
      this.lastTextAt = now;
      this.changesAtText = areaChanges;
    }
    if (!captionsOn) this.offSince ??= now;
    else this.offSince = null;

    const unseen = areaChanges - this.changesAtText;
    const quietMs = now - this.lastTextAt;
    this.set(changes, 'captions_unreadable', captionsOn && unseen >= MIN_CHANGES && quietMs >= this.blindAfterMs, () =>
      `the caption area changed ${unseen} times in ${Math.round(quietMs / 1000)} s and no caption text could be read`,
    );
    const offMs = this.offSince === null ? 0 : now - this.offSince;
    this.set(changes, 'captions_unavailable', offMs >= this.blindAfterMs, () =>
      `in the call for ${Math.round(offMs / 1000)} s and captions could not be turned on`,
    );
    return changes;
  }

  private set(changes: HealthChange[], warning: HealthWarning, on: boolean, seen: () => string): void {
    if (on === this.active.has(warning)) return;
    if (on) this.active.add(warning);
    else this.active.delete(warning);
    changes.push({ warning, raised: on, seen: on ? seen() : '' });
  }
}

/** The snapshot with every known name (participants, the bot) taken out of attribute values. */
export function withoutNames(snapshot: SnapshotNode[], names: string[]): SnapshotNode[] {
  const known = names.map((n) => n.trim()).filter((n) => n.length >= 2);
  const redact = (value: string) =>
    known.reduce((text, name) => text.split(name).join('[name]'), value);
  return snapshot.map((node) => ({
    ...node,
    attrs: Object.fromEntries(Object.entries(node.attrs).map(([k, v]) => [k, redact(v)])),
  }));
}
