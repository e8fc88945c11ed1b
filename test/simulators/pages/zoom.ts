/**
 * The Zoom pages of the simulator: the launch page a meeting link opens (zoom.us/j/<id>,
 * usNNweb.zoom.us/j/<id>, zoom.us/my/<name>), the web client (app.zoom.us/wc/join/<id>,
 * /wc/<id>/join) with its walls, pre-join, waiting screens and call, and the sign-in page a
 * meeting for signed-in users sends a guest to. Texts are modelled on Zoom's web client and help
 * pages, not copied from a live page.
 */
import type { MeetingOptions } from '../types.js';
import { definePages } from './html.js';

export const zoomPages = definePages({
  classKeys: [
    'btn',
    'primary',
    'danger',
    'input',
    'video',
    'page',
    'title',
    'error',
    'preview',
    'previewBar',
    'scrim',
    'dialog',
    'banner',
    'call',
    'stage',
    'bar',
    'menu',
    'menuItem',
    'side',
    'panelTitle',
    'plist',
    'pitem',
    'ccHost',
    'ccLine',
    'ccHead',
    'ccAvatar',
    'ccName',
    'ccText',
    'tlist',
    'titem',
    'thead',
    'tname',
    'ttext',
    'speaking',
    'toast',
  ],
  /** The video tiles' area. */
  laterClassKeys: ['videos'],
  /**
   * Where wrapper elements may appear (see markup.ts): around the caption overlay, its lines, their
   * header (avatar and name), avatar, name and text; the transcript panel's entries and their parts;
   * the participants panel's items; the controls of every screen.
   */
  levels: ['overlay', 'line', 'head', 'avatar', 'name', 'text', 'entry', 'entryHead', 'entryText', 'item', 'control'],
  /**
   * How the bot's own entry in the participants panel is labelled: "Notetaker (me)", "(Me)",
   * "(Guest, me)" or the bare name.
   */
  selfTile: ['me', 'Me', 'guestMe', 'name'],
  /**
   * How the active speaker shows (field notes, Zoom 4): their video tile's frame gets the active
   * class (`speaker-bar-container__video-frame--active`), their participants-panel entry an
   * outline (a class of the build's own), or both.
   */
  speakingMark: ['frame', 'entry', 'both'],
  /**
   * Whether the caption overlay shows the speaker's name beside the avatar or the avatar alone;
   * whether captions are a menu (CC opens "Show Captions", "View Full Transcript") or a toggle
   * button with a menu of its own beside it; whether the launch page offers "Join from your
   * browser" at once or only after "Launch Meeting"; which of two wordings every wall, refusal and
   * waiting screen uses; a banner over the call.
   */
  choices: {
    captionName: ['avatarOnly', 'name'],
    ccControl: ['menu', 'button'],
    launch: ['direct', 'afterLaunch'],
    wording: ['a', 'b'],
    banner: ['none', 'recording', 'tip'],
    /**
     * Where the captions' "Speaking language" is (drawn after the others, so earlier draws stay):
     * the captions menu's "Caption Settings", or, on builds with translated captions, "Translated
     * Captions" beside the language to translate to ("Caption Settings" then holds no language).
     */
    languageSetting: ['settings', 'translated'],
    /*
     * The pre-join as Zoom's builds draw it (field notes, Zoom 1; drawn after the others, so earlier
     * draws stay). The name field: the React client's `#input-for-name` with its aria-label, the
     * classic client's `#inputname` with the placeholder "Your Name", a placeholder alone, a
     * visible label alone (`fieldLabel` says how it is tied to the input), or only an id no driver
     * knows (the form's one text input). The passcode field likewise (`#input-for-pwd`; a text
     * input with a passcode placeholder; a password input with nothing else).
     */
    nameField: ['react', 'classic', 'placeholder', 'label', 'unknownId'],
    passcodeField: ['react', 'classic', 'placeholder', 'label', 'unknownId'],
    /** How a visible label names its field: `<label for>`, aria-labelledby, text beside it, a wrapping `<label>`. */
    fieldLabel: ['for', 'labelledby', 'beside', 'wrapping'],
    /** The form drawn with the page, or a moment after it. */
    formTiming: ['now', 'late'],
    /** The permission dialog ("Allow" or "Continue without microphone and camera"): not shown, shown once, shown twice. */
    permission: ['none', 'once', 'twice'],
    /** Terms to agree to after the first click on Join: none; agreeing joins; agreeing, then Join again. */
    terms: ['none', 'agreeJoins', 'agreeThenJoin'],
    /** A cookie banner over the client: none, OneTrust's, or a plain bar with "Accept (All) Cookies". */
    cookies: ['none', 'onetrust', 'banner'],
    /** The client drawn in the page, or in `iframe#webclient` of a shell at /wc/<id>/join?fromPWA=1. */
    clientFrame: ['page', 'iframe'],
    /**
     * The web client on app.zoom.us (and the launch page) sending the browser on: not at all; by
     * HTTP 302 or by a script to another host's web client (ZOOM_OTHER_HOST); to the classic client.
     */
    redirect: ['none', 'http', 'script', 'classic'],
  },
  /** Drawn after the others: the footer's microphone labelled "unmute my microphone", or by its text alone. */
  laterChoices: {
    micWording: ['long', 'textOnly'],
  },
  css: (c) => `
  body { margin: 0; font: 14px/1.4 Lato, system-ui, sans-serif; background: #fff; color: #232333; }
  .${c.btn} { border: 1px solid #babacc; border-radius: 8px; padding: 6px 14px; background: #fff; cursor: pointer; }
  .${c.btn}:disabled { opacity: .5; }
  .${c.primary} { background: #0e72ed; color: #fff; }
  .${c.danger} { background: #e02828; color: #fff; }
  .${c.input} { display: block; width: 300px; padding: 8px; margin: 8px 0; }
  .${c.page} { display: flex; flex-direction: column; align-items: center; gap: 12px; padding: 48px; }
  .${c.error} { color: #e02828; }
  .${c.preview} { width: 480px; height: 270px; background: #1a1a1a; }
  .${c.video} { width: 100%; height: 100%; }
  .${c.previewBar} { display: flex; gap: 8px; }
  .${c.scrim} { position: fixed; inset: 0; background: rgba(0,0,0,.4); display: flex; align-items: center; justify-content: center; }
  .${c.dialog} { background: #fff; padding: 24px; border-radius: 12px; width: 420px; }
  .${c.banner} { position: fixed; top: 8px; left: 50%; transform: translateX(-50%); background: #fff; padding: 8px 16px; box-shadow: 0 2px 8px rgba(0,0,0,.3); }
  .${c.call} { display: flex; flex-direction: column; height: 100vh; background: #1a1a1a; color: #fff; }
  .${c.stage} { flex: 1; display: flex; }
  .${c.bar} { display: flex; gap: 6px; padding: 8px; background: #242424; position: relative; }
  .${c.menu} { position: absolute; bottom: 52px; background: #fff; color: #232333; box-shadow: 0 2px 8px rgba(0,0,0,.3); }
  .${c.menuItem} { padding: 8px 16px; cursor: pointer; }
  .${c.side} { width: 280px; background: #fff; color: #232333; overflow: auto; }
  .${c.panelTitle} { font-weight: 700; padding: 8px; }
  .${c.pitem}, .${c.titem} { padding: 4px 8px; }
  .${c.ccHost} { position: absolute; bottom: 72px; left: 10%; right: 30%; }
  .${c.ccLine} { display: flex; gap: 8px; align-items: center; background: rgba(0,0,0,.7); padding: 4px 8px; margin-top: 4px; }
  .${c.ccHead} { display: flex; gap: 4px; align-items: center; }
  .${c.ccAvatar} { width: 24px; height: 24px; border-radius: 50%; }
  .${c.ccName} { font-weight: 700; }
  .${c.ccText} { font-size: 18px; }
  .${c.thead} { display: flex; gap: 6px; align-items: center; font-size: 12px; }
  .${c.tname} { font-weight: 700; }
  .${c.speaking} { outline: 2px solid #23d959; }
  .${c.videos} { display: flex; flex-wrap: wrap; gap: 6px; padding: 6px; }
  .speaker-bar-container__video-frame { width: 200px; height: 112px; background: #2d2d2d; position: relative; }
  .speaker-bar-container__video-frame--active { outline: 2px solid #23d959; }
  .video-avatar__avatar-footer { position: absolute; bottom: 4px; left: 6px; font-size: 12px; }
  .${c.toast} { position: fixed; top: 56px; left: 50%; transform: translateX(-50%); padding: 8px 16px; background: #fff; color: #232333; }
`,
  client: 'zoom-client.js',
  rootId: 'zoom-ui-frame',
});

/** Which page of Zoom's a load is, and what the server decided for it. */
export type ZoomPageConfig =
  | { page: 'launch'; seed: number; meetingId: string; pwd: string | null }
  | { page: 'signin'; seed: number }
  | {
      page: 'client';
      seed: number;
      meetingId: string;
      pwd: string | null;
      /** A screen shown instead of the pre-join: an invalid id, the bot wall, a guest refused. */
      screen: 'invalid' | 'captcha' | 'refused' | null;
      /** The meeting has a passcode and the link's pwd does not carry it: the pre-join asks. */
      askPasscode: boolean;
      /** Signed in: the name is the account's (no name field). */
      account: { name: string; email: string } | null;
      /** The meeting's options the call needs (never its passcode). */
      options: Partial<MeetingOptions>;
      /** The classic client (zoom.us/wc/...): its fields whatever the seed drew. */
      classic: boolean;
    };

export function zoomPage(config: ZoomPageConfig): string {
  const titles = { launch: 'Launch Meeting - Zoom', signin: 'Sign In | Zoom', client: 'Zoom' } as const;
  return zoomPages.render(titles[config.page], config);
}

/**
 * The page a web client load in an iframe gets first (TT: `/wc/<id>/join?fromPWA=1` renders the
 * client inside `iframe#webclient`): nothing but the iframe, filling the window, loading `src`
 * (the same client URL; the simulator tells the iframe's request by its Sec-Fetch-Dest).
 */
export function zoomShell(seed: number, src: string): string {
  const frame = `<iframe id="webclient" src="${escapeAttr(src)}" allow="microphone; camera; autoplay; display-capture" style="position:fixed;inset:0;width:100%;height:100%;border:0"></iframe>`;
  // Where the notes are silent: zero to two wrappers around the iframe.
  const wrapped = Array.from({ length: seed % 3 }).reduce<string>((inner) => `<div>${inner}</div>`, frame);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Zoom</title></head><body style="margin:0">${wrapped}</body></html>`;
}

/** A page that sends the browser on by script a moment after it loads (Zoom's launch and redirect pages). */
export function zoomScriptRedirect(target: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Zoom</title></head><body><p>Redirecting...</p><script>setTimeout(function () { location.replace(${JSON.stringify(target).replace(/</g, '\\u003c')}); }, 300);</script></body></html>`;
}

const escapeAttr = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
