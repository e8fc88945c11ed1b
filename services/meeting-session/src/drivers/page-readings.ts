/**
 * What the platforms' page scripts read from the page and give back: one whole reading of the page
 * (`inspect`), and the caption language setting opened (`openLanguage`). A module of their own,
 * so that the action table (page-actions.ts), the platforms and the driver share them without an
 * import cycle.
 */
import type { DriverEnd, DriverFailure } from '@notetaker/contracts';
import type { TileReading } from './tile-readings.js';

/** `not_started`: Zoom's "waiting for the host to start this meeting", waited on up to the join timeout. */
export type Screen = 'launcher' | 'prejoin' | 'lobby' | 'not_started' | 'in_call' | 'terminal' | 'sign_in' | 'unknown';

/** One reading of the page, taken in a single round trip. */
export interface PageState<Item> {
  /** Orders readings and observer reports taken in the page, so a stale one is never applied. */
  seq: number;
  /** Epoch ms at which the page was read (the page's clock: the same machine's). */
  readAt: number;
  url: string;
  screen: Screen;
  outcome: DriverFailure | DriverEnd | null;
  /** The label of a pop-up's confirming button, if one is open. */
  dialog: string | null;
  prejoin: {
    name: string | null;
    micOn: boolean;
    camOn: boolean;
    joinEnabled: boolean;
    /** Zoom: what the passcode field holds, when the pre-join asks for one (absent: none asked). */
    passcode?: string | null;
    /** Signed in: the identity the account button names ("Ada Bot (ada@example.com)"). */
    identity: string | null;
  } | null;
  captionsOn: boolean;
  captions: Item[] | null;
  /**
   * What the tiles show: the people's names, whether the bot's own tile was told apart, and each
   * other tile's look (TileReading in tile-readings.ts).
   */
  participants: TileReading | null;
  /** Whether the page's caption observer is installed (a new document loses it). */
  observing: boolean;
  /** Changes seen inside the caption area since the observer was installed (read or not). */
  areaChanges: number;
  /** An unknown screen's main heading (or its first words), so a warning or a timeout can name it. */
  heading?: string | null;
  /** The call's controls are in the page but hidden until the pointer moves (pointer.ts shows them). */
  controlsHidden?: boolean;
}

/**
 * The answer to `openLanguage`: the list of languages when it is open (with the one selected now), else
 * what was clicked on the way to it (null: nothing to click was found).
 */
export interface LanguageOpened {
  clicked: string | null;
  list?: { current: string; options: string[] };
}
