/**
 * The Microsoft Teams pages of the simulator: the launcher a meeting link opens
 * (teams.microsoft.com/l/meetup-join/..., teams.live.com/meet/...), the light-meetings app under
 * /v2/, and the Microsoft sign-in page a tenant that refuses guests redirects to.
 */
import { definePages } from './html.js';

export const teamsPages = definePages({
  classKeys: [
    'btn',
    'primary',
    'danger',
    'input',
    'video',
    'launcher',
    'title',
    'prejoin',
    'preview',
    'row2',
    'switch',
    'scrim',
    'dialog',
    'lobby',
    'bar',
    'end',
    'call',
    'badge',
    'stage',
    'ccHost',
    'menuHost',
    'menu',
    'menuItem',
    'vlist',
    'ccWindow',
    'ccRenderer',
    'author',
    'ccText',
    'row',
    'rowHead',
    'rowBody',
    'tile',
    'tileName',
  ],
  /** The voice-level ring of a tile, silent and speaking, and the call's notices. */
  laterClassKeys: ['ring', 'ringOn', 'speaking', 'toast'],
  /**
   * Where wrapper elements may appear (see markup.ts): around the captions window, its renderer, the
   * list, each row, a row's header, author, body and text; around tiles and their names; around the
   * controls of every screen.
   */
  levels: ['window', 'renderer', 'list', 'row', 'head', 'author', 'body', 'text', 'tile', 'tileName', 'control'],
  /**
   * How this page load labels the bot's own tile: "<name> (You)", "<name> (Guest) (You)" (a guest's
   * own label), "You" alone, or just the bot's display name with no mark at all.
   */
  selfTile: ['nameYou', 'guestYou', 'you', 'name'],
  /**
   * How a speaking person's tile shows it (field notes, Teams 4): the voice-level ring every tile
   * has (`data-tid="voice-level-stream-outline"`) made visible by a class of the build's own, the
   * tile's `::before` border at opacity 1 (MB), "speaking" in the tile's label ("Alice, speaking"
   * for "Alice, muted"), or a class of the build's own on the tile (`vdi-frame-occlusion`-like).
   */
  speakingMark: ['outline', 'before', 'label', 'class'],
  /**
   * Teams' join flow as real builds have drawn it (docs/platforms/teams.md, from the field notes),
   * one of each per page load: `refusal` and `screenWording` word the guests-refused and
   * sign-in-needed screens and the end screens (the client's REFUSALS, SCREEN_WORDS); `launcher`
   * the launcher's way to the browser ([data-tid=joinOnWeb] "Continue on this browser", a button
   * labelled "Join meeting from this browser", a "Join on this browser" link, "Join from browser");
   * `app` the page it leads to (the /v2/ app, or /light-meetings/launch after a loading screen);
   * `nameField` how the name field is marked (data-tid, placeholder "Type your name", a <label>
   * only); `deviceModal` "Are you sure you don't want audio or video?" before or after the Join
   * click, in German, or after "Select Allow to let Microsoft Teams use your mic and camera";
   * `audioOptions` the toggles alone, or inside the "Computer audio" / "Don't use audio" radios;
   * `lobbyWording` the lobby's words (LOBBY_WORDS).
   */
  choices: {
    refusal: ['a', 'b', 'c', 'd', 'e', 'f'],
    screenWording: ['a', 'b', 'c'],
    launcher: ['joinOnWeb', 'ariaLabel', 'joinOnBrowser', 'fromBrowser'],
    app: ['v2', 'light'],
    nameField: ['dataTid', 'placeholder', 'label'],
    deviceModal: ['none', 'before', 'after', 'beforeGerman', 'allowPrompt'],
    audioOptions: ['toggles', 'radios'],
    lobbyWording: ['letYouIn', 'meetingShould', 'admitted', 'whenStarts'],
  },
  /**
   * Drawn after the shared choices (html.ts), from the field notes' Teams sections and what real
   * builds carry where the notes are silent: `accountButton` the signed-in app's account button,
   * as the build with ids draws it (#idna-me-control-avatar-trigger, data-tid, "Account manager for
   * <name>"), the same label without the ids, or "Your profile, status Available" with the name on
   * its avatar (Fluent's role=img label) alone; `mixTracks` the call's one server mix (its track
   * named mainAudio-...) alone, or with a redundant track beside it carrying the same sound (VX
   * teams-main-audio.ts); `lightRedirect` the light-meetings page sending the meeting's first
   * browser on to `lightExperience=false`, the full app, which never gets to the meeting (AT #904:
   * retried); `captcha` where a meeting's CAPTCHA (MeetingOptions.botWall: "Verify you're a real
   * person", AT #741) comes: before the pre-join or after the Join click; `e2eeEnd` where an
   * end-to-end encrypted call (MeetingOptions.e2ee) ends in "An encryption error occurred": at
   * once on admission, or a moment into the call.
   */
  laterChoices: {
    accountButton: ['ids', 'label', 'profile'],
    mixTracks: ['one', 'redundant'],
    lightRedirect: ['none', 'once'],
    captcha: ['beforePrejoin', 'afterJoin'],
    e2eeEnd: ['atAdmission', 'inCall'],
    /** The call's microphone button: "Unmute" / "Mute", or "Unmute mic" / "Mute mic" (AT). */
    micWording: ['short', 'mic'],
    /** The call's media path hands the bot its own microphone track back ('loopback', call-microphone.js), or not. */
    micEcho: ['none', 'loopback'],
  },
  css: (c) => `
  body { margin: 0; font: 14px/1.4 'Segoe UI', system-ui, sans-serif; background: #f5f5f5; color: #242424; }
  .${c.btn} { border: 1px solid #d1d1d1; border-radius: 4px; padding: 6px 14px; background: #fff; cursor: pointer; }
  .${c.btn}:disabled { opacity: .5; }
  .${c.primary} { background: #5b5fc7; color: #fff; }
  .${c.danger} { background: #c4314b; color: #fff; }
  .${c.input} { display: block; width: 280px; padding: 8px; margin: 12px 0; }
  .${c.launcher}, .${c.prejoin}, .${c.lobby}, .${c.end} { display: flex; flex-direction: column; align-items: center; gap: 12px; padding: 48px; }
  .${c.preview} { width: 480px; height: 270px; background: #292929; }
  .${c.video} { width: 100%; height: 100%; }
  .${c.scrim} { position: fixed; inset: 0; background: rgba(0,0,0,.5); display: flex; align-items: center; justify-content: center; }
  .${c.dialog} { background: #fff; padding: 24px; border-radius: 8px; width: 420px; }
  .${c.call} { display: flex; flex-direction: column; height: 100vh; }
  .${c.bar} { display: flex; gap: 6px; padding: 8px; background: #ebebeb; }
  .${c.menuHost} { position: relative; }
  .${c.menu} { display: inline-block; background: #fff; box-shadow: 0 2px 8px rgba(0,0,0,.3); margin: 0 8px; vertical-align: top; }
  .${c.menuItem} { padding: 8px 16px; cursor: pointer; }
  .${c.stage} { flex: 1; display: flex; flex-wrap: wrap; gap: 8px; padding: 8px; }
  .${c.tile} { width: 240px; height: 135px; background: #3d3d3d; color: #fff; position: relative; }
  .${c.tile}::before { content: ''; position: absolute; inset: 0; border: 2px solid #5b5fc7; opacity: var(--voice-level, 0); pointer-events: none; }
  .${c.tileName} { position: absolute; bottom: 4px; left: 8px; }
  .${c.vlist} { position: relative; overflow: hidden; margin: 0 48px 16px; background: rgba(0,0,0,.75); color: #fff; }
  .${c.row} { position: absolute; top: 0; left: 0; right: 0; height: 52px; padding: 2px 8px; }
  .${c.author} { font-weight: 600; font-size: 12px; }
  .${c.ccText} { font-size: 16px; }
  .${c.ring} { position: absolute; inset: 0; border: 3px solid #7f85f5; opacity: 0; pointer-events: none; }
  .${c.ringOn} { opacity: 1; }
  .${c.speaking} { outline: 2px solid #7f85f5; }
  .${c.toast} { position: fixed; top: 56px; left: 50%; transform: translateX(-50%); padding: 8px 16px; background: #fff; box-shadow: 0 2px 8px rgba(0,0,0,.3); }
`,
  client: 'teams-client.js',
  rootId: 'app',
});

export function teamsPage(config: {
  page: 'launcher' | 'app' | 'login';
  /** The launcher hands its seed on to the app it opens, so one join is one drawn markup. */
  seed: number;
}): string {
  return teamsPages.render(config.page === 'login' ? 'Sign in to your account' : 'Microsoft Teams', config);
}
