/**
 * Every action a platform's page script answers, with the type of its argument and of its result:
 * a caller names an entry (`adapter.run(page, actions.inspect)`), never an action string, so a call
 * is typed end to end, and a page script that answers a name not in this table does not compile
 * (page-scripts/source.ts). Meet, Teams and Zoom each answer the actions their pages need.
 */
import type { SnapshotNode } from './driver.js';
import type { LanguageOpened, PageState } from './page-readings.js';

/** An action's name in the page, and (as types only) what it takes and gives back. */
export interface PageAction<Arg, Result> {
  readonly name: string;
  /** Never set: carries the types, as a route carries its schemas. */
  readonly types?: (arg: Arg) => Result;
}

/**
 * Stands for the platform's caption item (Meet's blocks, Teams' rows) in `inspect`'s result;
 * PlatformAdapter<Item>.run gives back a PageState<Item> in its place.
 */
export interface PlatformItem {
  readonly platformItem: unique symbol;
}
export type ResultOf<Result, Item> = Result extends PageState<PlatformItem> ? PageState<Item> : Result;
/** The arguments after the action: none for an action that takes none. */
export type ArgsOf<Arg> = [Arg] extends [void] ? [] : undefined extends Arg ? [arg?: Arg] : [arg: Arg];

/** What a reading reads besides the screen, captions and names. */
export interface InspectOptions {
  /**
   * The tiles' looks (lookOf in page-scripts/dom-helpers.ts), computed styles of every element
   * of every tile: only a meeting transcribed from its audio names voices by them.
   */
  looks: boolean;
}

/** Where a warning's snapshot is taken: around the call's buttons, the caption area, or the whole page (a join screen). */
export type SnapshotArea = 'toolbar' | 'captions' | 'page';

/** The page binding the caption observer reports through (page-bindings.ts), a JSON `{ seq, items }`. */
export const CAPTIONS_BINDING = '__ntCaptions';

const action = <Arg = void, Result = boolean>(name: string): PageAction<Arg, Result> => ({ name });

export const actions = {
  /** One reading of the page, in a single round trip; the tiles' looks only when asked. */
  inspect: action<InspectOptions | undefined, PageState<PlatformItem>>('inspect'),
  /** Installs the caption observer (its reports arrive through CAPTIONS_BINDING); true once it is. */
  observe: action('observe'),
  /** Teams' launcher: "Continue on this browser". */
  continue: action('continue'),
  /** Presses a pop-up's confirming button. */
  confirmDialog: action('confirmDialog'),
  /** Focuses the name input, emptied, for the keyboard to type into. */
  focusName: action('focusName'),
  /** Zoom: focuses the passcode input, emptied, for the keyboard to type into. */
  focusPasscode: action('focusPasscode'),
  /** Turns microphone and camera off: whether each toggle was pressed. */
  muteMedia: action<void, [boolean, boolean]>('muteMedia'),
  join: action('join'),
  /** Meet: the captions button, if one is in reach. */
  captionsButton: action('captionsButton'),
  /** Teams: one step along its menus towards captions; what it clicked. */
  captionsStep: action<void, 'captions' | 'language' | 'more' | 'none'>('captionsStep'),
  /** Takes the focus off whatever has it, so that a keyboard shortcut reaches the page. */
  blur: action('blur'),
  /** The caption language (caption-language.ts): one click towards the list of languages, or the list. */
  openLanguage: action<void, LanguageOpened>('openLanguage'),
  /** Picks the language with this label in the open list. */
  pickLanguage: action<string, boolean>('pickLanguage'),
  /** Closes the language settings, applying the pick (true) or not. */
  finishLanguage: action<boolean, boolean>('finishLanguage'),
  leave: action('leave'),
  /** The structure (no text) of the toolbar, the caption area or the page, for a warning. */
  snapshot: action<SnapshotArea, SnapshotNode[]>('snapshot'),
};

export type ActionName = keyof typeof actions;
