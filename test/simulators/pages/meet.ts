/** The Google Meet pages of the simulator (meet.google.com/<code>). */
import type { MeetingOptions } from '../types.js';
import { definePages } from './html.js';

export const meetPages = definePages({
  classKeys: [
    'icon',
    'btn',
    'btnLabel',
    'primary',
    'danger',
    'round',
    'input',
    'video',
    'videoOff',
    'prejoin',
    'preview',
    'previewBar',
    'side',
    'title',
    'subtitle',
    'actions',
    'scrim',
    'dialog',
    'dialogTitle',
    'dialogText',
    'end',
    'call',
    'grid',
    'tile',
    'tileMedia',
    'tileAvatar',
    'tileBar',
    'tileName',
    'captionsHost',
    'capRegion',
    'capList',
    'capBlock',
    'capHead',
    'capAvatar',
    'capName',
    'capText',
    'bar',
    'clock',
    'ctl',
    'badge',
  ],
  /**
   * The speaking tile's outline, its audio-level bars, the call's notices, the leaf over a tile; the
   * toolbar while hidden, the self-view's effects panel.
   */
  laterClassKeys: ['speaking', 'level', 'levelBar', 'toast', 'tileRing', 'barHidden', 'effects'],
  /**
   * Where wrapper elements may appear (see markup.ts): around the captions region, the list of
   * blocks, each block, its header, avatar, name and text; around tiles, a tile's avatar and name;
   * around the controls of every screen.
   */
  levels: ['region', 'list', 'block', 'head', 'avatar', 'name', 'text', 'tile', 'tileAvatar', 'tileName', 'control'],
  /**
   * How this page load marks the bot's own tile, as Meet builds do: `data-self-name` on an element
   * inside the tile, the same marker on the tile element itself, the name shown as "You", or as
   * "<bot name> (You)" without a marker.
   */
  selfTile: ['inner', 'tile', 'you', 'nameYou'],
  /**
   * How a speaking person's tile shows it (field notes, Meet 4): the build's outline class on the
   * tile (VX's speaking classes), a border on a leaf element of the tile (JY: `borderTopWidth > 3`),
   * the mic icon turned into an equalizer (`graphic_eq`), an audio-level indicator whose bars and
   * `data-audio-level` (0 silent, 1-3) follow the voice, or a glow (box-shadow) on the tile.
   */
  speakingMark: ['class', 'border', 'icon', 'level', 'glow'],
  /**
   * Meet's join flow as real builds have drawn it (docs/platforms/google-meet.md, from the field
   * notes), one of each per page load: `refusal` and `screenWording` word the guests-refused screen
   * and the end screens (the client's REFUSALS, SCREEN_WORDS); `nameField` how the name field is
   * marked (aria-label "Your name", a jsname and nothing else, inside a jscontroller labelled by the
   * heading, a placeholder only, a label in the page's own language: Hungarian "A neved");
   * `joinWording` the join button's words (JOIN_WORDS); `controlElement` whether the join button
   * and the toggles are buttons or div[role=button]; `otherWays` where "Other ways to join" stands;
   * `prejoinPopup` a dialog over the pre-join (PREJOIN_POPUPS); `joinInterstitial` a notice after
   * the join click (JOIN_INTERSTITIALS); `lobbyWording` the asking screen (LOBBY_WORDS);
   * `signedInJoin` a signed-in bot's buttons ("Join now", or "Switch here" and "Join here too").
   */
  choices: {
    refusal: ['a', 'b', 'c', 'd'],
    screenWording: ['a', 'b', 'c', 'd'],
    nameField: ['ariaLabel', 'jsname', 'jscontroller', 'placeholder', 'localized'],
    joinWording: ['plain', 'anyway', 'callNow'],
    controlElement: ['div', 'button'],
    otherWays: ['after', 'before'],
    prejoinPopup: ['none', 'noDevices', 'noDevicesGerman', 'noAccount', 'dismiss'],
    joinInterstitial: ['none', 'recording', 'transcribing', 'videoDifferent', 'gemini'],
    lobbyWording: ['asking', 'pleaseWait', 'waitingHost', 'hostJoin', 'meaning'],
    signedInJoin: ['joinNow', 'otherDevice'],
  },
  /**
   * Drawn after the shared choices (html.ts), from the field notes' Meet 2: `toolbar` the call's
   * toolbar always shown, or hidden until the pointer moves ('autoHide', call-chrome.js);
   * `effectsTile` the self-view's "Backgrounds and effects" panel carrying a data-participant-id
   * in the pre-join, the lobby (with the lobby's own toolbar and its Leave call button) and the
   * call, labelled on the element or only by its text, or not drawn.
   */
  laterChoices: {
    toolbar: ['shown', 'autoHide'],
    effectsTile: ['none', 'labelled', 'text'],
    /** The call's microphone button's label: with Meet's shortcut hint "(ctrl + d)" or without. */
    micWording: ['shortcut', 'plain'],
    /** The call's media path hands the bot its own microphone track back ('loopback', call-microphone.js), or not. */
    micEcho: ['none', 'loopback'],
  },
  css: (c) => `
  body { margin: 0; font: 14px/1.4 'Google Sans', Roboto, Arial, sans-serif; background: #202124; color: #e8eaed; }
  .${c.icon} { font-style: normal; font-size: 12px; }
  .${c.btn} { border: 0; border-radius: 20px; padding: 8px 20px; background: #3c4043; color: #e8eaed; cursor: pointer; }
  .${c.btn}:disabled { opacity: .5; }
  .${c.primary} { background: #8ab4f8; color: #202124; }
  .${c.round} { display: inline-flex; width: 48px; height: 48px; border-radius: 50%; border: 1px solid #fff; align-items: center; justify-content: center; margin: 4px; }
  .${c.input} { display: block; width: 260px; padding: 12px; margin: 12px 0; font-size: 16px; }
  .${c.prejoin}, .${c.end} { display: flex; gap: 32px; padding: 48px; }
  .${c.preview} { position: relative; width: 480px; height: 270px; background: #000; border-radius: 8px; }
  .${c.video} { width: 100%; height: 100%; }
  .${c.videoOff} { padding: 120px 0; text-align: center; }
  .${c.previewBar} { position: absolute; bottom: 8px; left: 0; right: 0; text-align: center; }
  .${c.title} { font-size: 28px; margin: 0 0 8px; }
  .${c.actions} { display: flex; gap: 8px; margin-top: 16px; }
  .${c.end} { flex-direction: column; align-items: center; }
  .${c.scrim} { position: fixed; inset: 0; background: rgba(0,0,0,.6); display: flex; align-items: center; justify-content: center; }
  .${c.dialog} { background: #fff; color: #202124; padding: 24px; border-radius: 8px; width: 400px; }
  .${c.call} { display: flex; flex-direction: column; height: 100vh; }
  .${c.grid} { flex: 1; display: flex; flex-wrap: wrap; gap: 8px; padding: 8px; }
  .${c.tile} { width: 240px; height: 135px; background: #3c4043; border-radius: 8px; position: relative; }
  .${c.tileMedia} { text-align: center; padding-top: 40px; }
  .${c.tileBar} { position: absolute; bottom: 4px; left: 8px; }
  .${c.captionsHost} { min-height: 40px; }
  .${c.capRegion} { padding: 8px 64px; max-height: 180px; overflow: hidden; }
  .${c.capBlock} { display: flex; gap: 8px; margin-bottom: 6px; }
  .${c.capHead} { display: flex; gap: 4px; align-items: center; min-width: 120px; }
  .${c.capAvatar} { width: 24px; height: 24px; border-radius: 50%; }
  .${c.capText} { font-size: 18px; }
  .${c.bar} { display: flex; gap: 8px; align-items: center; padding: 12px; }
  .${c.ctl} { min-width: 40px; height: 40px; border-radius: 20px; border: 0; background: #3c4043; color: #fff; }
  .${c.danger} { background: #ea4335; }
  .${c.speaking} { box-shadow: inset 0 0 0 3px #8ab4f8; }
  .${c.tileRing} { position: absolute; inset: 0; border-radius: 8px; pointer-events: none; }
  .${c.level} { display: inline-flex; gap: 2px; align-items: flex-end; width: 14px; height: 12px; vertical-align: middle; }
  .${c.levelBar} { width: 3px; height: 3px; border-radius: 2px; background: #8ab4f8; }
  .${c.barHidden} { visibility: hidden; opacity: 0; }
  .${c.effects} { width: 120px; height: 68px; }
  .${c.toast} { position: fixed; bottom: 84px; left: 50%; transform: translateX(-50%); padding: 12px 24px; border-radius: 4px; background: #e8eaed; color: #202124; }
`,
  client: 'meet-client.js',
  rootId: 'yDmH0d',
});

export function meetPage(config: {
  seed: number;
  meetingId: string;
  code: string;
  space: string;
  hl: string | null;
  options: Partial<MeetingOptions>;
  /** An end screen shown at once instead of the pre-join screen; sign_in: Google's sign-in page. */
  screen: 'not_found' | 'invalid' | 'cannot_join' | 'sign_in' | null;
  /** The signed-in account the pre-join screen shows (no name field), or null for a guest. */
  account: { name: string; email: string } | null;
}): string {
  return meetPages.render(config.screen === 'sign_in' ? 'Sign in - Google Accounts' : 'Meet', config);
}
