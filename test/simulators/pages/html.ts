/** The HTML shell shared by the simulated pages: drawn markup, inlined CSS and client code. */
import { readFileSync } from 'node:fs';
import { drawChoices, drawMarkup } from '../markup.js';

const clients = new Map<string, string>();

/**
 * How a page load delivers the call's audio, drawn per seed like the rest (see AudioVariation in
 * types.ts): every platform's pages draw these right after how they mark the bot's own tile.
 */
export const AUDIO_CHOICES = {
  audioTracks: ['atJoin', 'late'],
  audioChange: ['none', 'replaceTrack', 'renegotiate', 'recreateElement'],
  audioElements: ['body', 'call', 'hidden'],
} as const;

/**
 * What a track carries while nobody speaks on it (AudioVariation.idle), drawn after every other
 * choice so that earlier draws stay: silence, or nothing at all (the media server stops sending
 * once the speech on the track ends, as servers that forward only active speakers do; the
 * receiving track is muted until the next speech on it).
 */
export const AUDIO_IDLE_CHOICES = { audioIdle: ['silence', 'paused'] } as const;

/**
 * The moment before a page's first screen is drawn whole (common.js halfDrawn), drawn last:
 * nothing, the header's "Sign in" button alone, or the app's default no-access words. Real
 * builds mount their shell before the screen's content; a bot must not end a meeting on it.
 */
export const HALF_DRAWN_CHOICES = { halfDrawn: ['none', 'signIn', 'wall'] } as const;

/**
 * How a page load shows captions the host turned off (MeetingOptions.captionsAllowed): the
 * control stays, disabled, with a note saying the host or organizer turned captions off; or it is
 * gone from the toolbar (Meet, Zoom) or the More menu (Teams).
 */
const CAPTIONS_REFUSED_CHOICES = { captionsRefused: ['disabled', 'absent'] } as const;

/**
 * How a Meet or Teams page load words its screens: the guests-refused screen (`refusal`, the
 * client's REFUSALS), then the not-found, removed, ended and lobby screens (`screenWording`, the
 * client's SCREEN_WORDS: the best-known sentences, or others that say the same).
 */
export const WORDING_CHOICES = { refusal: ['a', 'b', 'c'], screenWording: ['a', 'b'] } as const;

/**
 * The wordings of the unknown interstitial (MeetingOptions.interstitial): screens no driver knows,
 * one drawn per page load by its seed (interstitialOf).
 */
export const INTERSTITIALS = [
  { heading: 'Checking your browser', line: 'This takes a few seconds. Please keep this tab open.' },
  { heading: 'Getting things ready', line: 'Hang tight, we are setting up your session.' },
  { heading: 'One moment please', line: 'Your connection is being verified by the service.' },
] as const;

/** The interstitial's wording a seed's page loads show. */
export const interstitialOf = (seed: number) => INTERSTITIALS[seed % INTERSTITIALS.length];

/**
 * How a page load draws the meeting's chat panel (pages/chat-panel.js), drawn after every other
 * choice: the wording of its button and compose box (`chatWording`), whether each change redraws
 * the whole list or adds the new rows (`chatRender`), whether it keeps every message in the page
 * or only the last few, as a virtualized list does (`chatWindow`), and when it draws (`chatTiming`).
 */
export const CHAT_CHOICES = {
  chatWording: ['a', 'b', 'c'],
  chatRender: ['rebuild', 'append'],
  chatWindow: ['all', 'recent'],
  /** A message drawn as it comes, or a few hundred ms later (a build that batches its renders). */
  chatTiming: ['prompt', 'late'],
} as const;

/** The browser-side code of a page, kept as plain .js next to this file (it runs in Chromium as is). */
function clientSource(file: string): string {
  let source = clients.get(file);
  if (!source) {
    source = readFileSync(new URL(`./${file}`, import.meta.url), 'utf8');
    clients.set(file, source);
  }
  return source;
}

/** JSON that is safe inside a <script> element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export function renderPage<K extends string, L extends string>(page: {
  title: string;
  /** The seed of this page load's markup (see markup.ts). */
  seed: number;
  classKeys: readonly K[];
  /** Class roles added later, drawn from a stream of their own (see drawMarkup). */
  laterClassKeys?: readonly K[];
  /** The levels that get wrapper elements; the client wraps them with __SIMLIB__.wrap(level, el). */
  levels: readonly L[];
  css: (c: Record<K, string>) => string;
  config: Record<string, unknown>;
  /** Browser-side files, in order (the media's peer helpers, then the library: common.js, call-audio.js and call-chrome.js, first). */
  clients: string[];
  /** The id of the element the client draws its screens in (SIM.rootId in the page). */
  rootId: string;
}): string {
  const { cls, wrappers, wrapperClass } = drawMarkup(page.seed, page.classKeys, page.levels, page.laterClassKeys);
  return [
    '<!doctype html>',
    '<html lang="en" dir="ltr"><head><meta charset="utf-8">',
    `<title>${page.title}</title>`,
    `<style>${page.css(cls)}</style></head>`,
    `<body><div id="${page.rootId}"></div>`,
    `<script>window.__SIM__ = ${scriptJson({ ...page.config, seed: page.seed, cls, markup: { wrappers, wrapperClass }, rootId: page.rootId })};</script>`,
    ...page.clients.map((file) => `<script>${clientSource(file)}</script>`),
    '</body></html>',
  ].join('\n');
}

/**
 * One platform's pages: the class roles its markup names (drawn afresh per seed), the levels that
 * get wrapper elements, the choices a seed draws besides (see markup.ts), its CSS over the drawn
 * class names, and its browser-side client (after the library: common.js, call-audio.js, call-chrome.js)
 * mounted at `rootId`.
 *
 * Every platform's page loads draw, in this order: how the bot's own tile is marked (`selfTile`),
 * the call's audio (AUDIO_CHOICES), how a speaking person shows (`speakingMark`), how captions the
 * host turned off show (CAPTIONS_REFUSED_CHOICES), the platform's own `choices`, then what an idle
 * track carries (AUDIO_IDLE_CHOICES) and the moment before the first screen is drawn whole
 * (HALF_DRAWN_CHOICES), then the platform's `laterChoices`. A new choice goes last, so every
 * seed's earlier draws stay.
 */
export function definePages<
  const K extends string,
  const L extends string,
  const S extends readonly string[],
  const M extends readonly string[],
  const C extends Record<string, readonly string[]>,
  const A extends string = never,
  const D extends Record<string, readonly string[]> = Record<never, never>,
>(pages: {
  classKeys: readonly K[];
  /** Class roles added after the first ones (drawn apart, so earlier seeds keep their class names). */
  laterClassKeys?: readonly A[];
  levels: readonly L[];
  selfTile: S;
  speakingMark: M;
  choices: C;
  /** Choices added after the shared last ones (drawn after them, so earlier draws stay). */
  laterChoices?: D;
  css: (c: Record<K | A, string>) => string;
  client: string;
  rootId: string;
}) {
  const { selfTile, speakingMark } = pages;
  const choices = {
    selfTile,
    ...AUDIO_CHOICES,
    speakingMark,
    ...CAPTIONS_REFUSED_CHOICES,
    ...pages.choices,
    ...AUDIO_IDLE_CHOICES,
    ...HALF_DRAWN_CHOICES,
    ...(pages.laterChoices ?? ({} as D)),
    ...CHAT_CHOICES,
  };
  const choicesOf = (seed: number) => drawChoices(seed, choices);
  return {
    levels: pages.levels,
    choices,
    choicesOf,
    /** A page load: `config` goes to the client with the seed's choices added. */
    render: (title: string, config: Record<string, unknown> & { seed: number }): string =>
      renderPage({
        title,
        seed: config.seed,
        classKeys: pages.classKeys as readonly (K | A)[],
        laterClassKeys: pages.laterClassKeys ?? [],
        levels: pages.levels,
        css: pages.css,
        config: { ...config, ...choicesOf(config.seed), interstitial: interstitialOf(config.seed) },
        clients: [
          '../media/peer-page.js',
          'common.js',
          'call-audio.js',
          'call-chrome.js',
          'chat-panel.js',
          'call-microphone.js',
          'call-video.js',
          pages.client,
        ],
        rootId: pages.rootId,
      }),
  };
}
