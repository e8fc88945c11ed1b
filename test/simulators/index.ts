/**
 * Local simulators of Google Meet and Microsoft Teams for driving real Chromium against, since the
 * real platforms are out of reach in tests. One HTTPS server answers for meet.google.com,
 * teams.microsoft.com, teams.live.com and login.microsoftonline.com; Chromium is pointed at it with
 * the flags from hostResolverRules(), so the drivers load the platforms' real URLs.
 *
 *   const sim = await startSimulator();
 *   const meeting = sim.meeting('abc-defg-hij');           // a Meet code, Teams thread id or number
 *   const url = sim.url('google_meet', 'abc-defg-hij');    // what a user would paste
 *   // launch the bot with BOT_BROWSER_ARGS = JSON.stringify(sim.hostResolverRules())
 *   await meeting.waitForBot((b) => b.screen === 'lobby');
 *   meeting.admit();
 *   await meeting.speak('Alice', growWords('Hello everyone'));
 *   meeting.truth();                                        // segments, participants, bots
 *
 * Accounts: sim.account(platform, name, email) makes a signed-in account whose storageState a
 * test hands to the bot; sim.signOut(email) makes the platform refuse that session. A meeting's
 * `guests` option refuses people who are not signed in (the platform's screen or its sign-in page).
 *
 * Scripting: admit(), deny(), noAnswer() (the platform gives up), or nothing at all (never answer:
 * the bot's own lobby timeout decides); join(name, {suffix}) / leave(name) (Teams shows a suffix
 * such as "(Guest)" after the name); present(name, on) (Meet adds a "<name> (Presentation)" tile);
 * caption(speaker) for a turn to
 * drive step by step (show, dropHead, split, remove) or speak(speaker, steps) to play one;
 * say(speaker, text) to say it aloud (below);
 * removeBot(); end(). Options (sim.meeting(id, options)) add pop-ups, hide the captions button,
 * choose the Teams captions menu, trim long Meet turns (headDropWords), fix the markup's seed
 * (markupSeed), etc.
 *
 * Markup drifts: every page load draws its wrapper elements and class names from a seed (the
 * meeting's markupSeed, else SIM_SEED, else a fresh one; see markup.ts), recorded in the truth's
 * pageLoads. variantSeeds(n) gives a variant suite its seeds (only SIM_SEED's when replaying). The
 * seed also draws how the page marks the bot's own tile (MEET_CHOICES, TEAMS_CHOICES; recorded as
 * the page load's selfTile); seedWithSelfTile() finds a seed that draws a given way.
 *
 * Captions turned off by the host: `captionsAllowed: false` at creation, or
 * meeting.setCaptionsAllowed(false | true) mid-meeting (control API: POST captions-allowed): while
 * off, the captions control is disabled with the platform's note or gone (drawn per page load,
 * `captionsRefused`), captions on go off, and nothing said is captioned; allowed again, the
 * control is back and captions stay off until someone turns them on.
 *
 * Who is speaking: while an utterance sounds (from its start to about 300 ms after its end) the
 * speaker's tile shows the platform's speaking indicator, drawn per page load (`speakingMark`) as
 * the field notes record it, never an attribute that names the speaker: Meet puts the build's
 * outline class on the tile, draws a border on a leaf of the tile, turns its mic icon into an
 * equalizer (`graphic_eq`), moves audio-level bars (`data-audio-level` 1-3, 0 silent) or sets a
 * glow (box-shadow); Teams shows the tile's voice-level ring (`data-tid="voice-level-stream-outline"`,
 * made visible by a class), brings the tile's ::before border to opacity 1, says "speaking" in the
 * tile's label, or puts a class of its own on the tile; Zoom gives the speaker's video tile its
 * active frame class, outlines their participants-panel entry, or both. Overlapping speakers
 * light both tiles; speech `unseen` (say's option) lights none. seedWithChoice() finds a seed
 * that draws a given way.
 *
 * Zoom (zoom-routes.ts, pages/zoom-client.js): the launch page on zoom.us / usNNweb.zoom.us
 * ("Join from your browser"), the web client on app.zoom.us (name, passcode, preview toggles), and
 * its walls: `passcode` (asked unless the link's pwd carries it, zoomPwd), `started: false` (waiting
 * for the host until meeting.start()), `lobby` (the waiting room), `notFound` (an invalid meeting
 * id), `guests` (signed-in users only: a refusal screen or zoom.us/signin), `botWall` (a CAPTCHA;
 * Teams has one of its own).
 * In the call: the audio dialog and banners, the caption overlay (avatar, sometimes the name), the
 * full transcript panel and the participants panel ("(Host)", "(me)", "(Guest)"). Each wall and
 * end screen comes in two wordings, drawn per page load like the markup (ZOOM_CHOICES). So does the
 * pre-join as Zoom's builds draw it: the name and passcode fields (React ids, classic `#inputname`,
 * placeholder, a visible label, an unknown id), the permission dialog (none, once, twice), terms
 * after Join, cookie banners (OneTrust, a plain bar), the client in `iframe#webclient`, redirects
 * between hosts (HTTP, script, to the classic client on zoom.us); seedWithZoomChoices() pins them
 * for a meeting, ZOOM_PREJOIN_VARIANTS names one of each, and the truth's `bots[i].prejoin` says
 * what the bot answered.
 *
 * The call's chrome and Teams' walls, drawn per page load after the rest (the pages' laterChoices):
 * Meet's toolbar shown, or hidden until the pointer moves (`toolbar`, call-chrome.js), and the
 * self-view's "Backgrounds and effects" panel carrying a data-participant-id (`effectsTile`);
 * Teams' account button with its ids, its label alone or "Your profile" with the name on its
 * avatar (`accountButton`), its mix on a `mainAudio-...` track with or without a redundant copy
 * beside it (`mixTracks`), the light-meetings page sending the meeting's first browser on to
 * `lightExperience=false` (`lightRedirect`; lightLaunchesOf() counts them), and where a meeting's
 * `botWall` CAPTCHA ("Verify you're a real person") and its `e2ee` end screen ("An encryption
 * error occurred") come (`captcha`, `e2eeEnd`). seedWithChoices() pins several choices at once.
 *
 * Not found, removed, ended and the lobby: Meet and Teams word each two ways (`screenWording`:
 * the best-known sentences, or others that say the same), Zoom two (`wording`); SCREEN_WORDINGS
 * and seedWithScreenWording() pick one.
 *
 * Guests refused (`guests: 'refused_screen'`): Meet and Teams word the refusal screen three ways
 * each (`refusal`: the best-known sentence, another wording, a sign-in heading; Teams' always with
 * a Sign in button), Zoom two (`wording`); REFUSAL_WORDINGS and seedWithRefusal() pick one.
 *
 * An unknown interstitial (`interstitial: true`): a screen no driver knows ("Checking your
 * browser"...: INTERSTITIALS, drawn by seed, interstitialOf()) before the pre-join, until the
 * option is set false.
 *
 * Caption language: each platform's settings offer the languages of `captionLanguages` (default
 * MEET_CAPTION_LANGUAGES / TEAMS_CAPTION_LANGUAGES / ZOOM_CAPTION_LANGUAGES;
 * `captionLanguageSettings: false` removes the setting), and the truth records the one each bot
 * picked (`bots[i].captionLanguage`, null if none). Zoom's "Speaking language" is in its captions
 * menu's "Caption Settings", or on builds with translation (`languageSetting`, drawn per page load)
 * in "Translated Captions" beside the language captions are translated to, which is left alone.
 *
 * Ground truth has one segment per caption block (a Meet block, a Teams row) with its full final
 * text, so a turn Meet splits into two blocks is two segments of the same speaker.
 *
 * Speech: `await meeting.say('Alice', 'We should ship on Friday.')` speaks the text with espeak-ng
 * in Alice's own voice (speech.ts) and plays it, SPEECH_LEAD_MS from now, in every bot page in the
 * call: over a real WebRTC path inside the page (a sending and a receiving RTCPeerConnection, the
 * remote tracks rendered in <audio> elements; Meet: three tracks, a speaker on the least recently
 * used one; Teams: one mixed track), and by default as a caption turn growing word by word over
 * the speech. It resolves once spoken with the utterance, also in the truth's `utterances`:
 * speaker, text, voice, startedAt (epoch ms) and durationMs (the sound's window), the audience
 * (bots in the call then; nobody else ever hears it) and each page's report of playing it.
 * `captionsFromSpeech: false` (or say's `captions: false`) gives speech alone. Between utterances
 * the tracks carry silence. How a page load receives the audio (tracks at join or late, a replaced
 * track, a renegotiation, re-created <audio> elements, where they sit) is drawn from its seed too
 * (AudioVariation, the page load's `audio`; seedWithAudio() finds a seed that draws a given way),
 * and what the page's audio did is in the truth's `audioEvents`.
 *
 * The same controls are served over HTTP (see control-api.ts) at sim.controlUrl.
 */
import type { SimAccount } from './accounts.js';
import { SIMULATED_HOSTS } from './certificate.js';
import type { SimMeeting } from './meeting.js';
import type { AudioVariation, MeetingOptions, SimPlatform } from './types.js';
import { drawMarkup } from './markup.js';
import type { WORDING_CHOICES } from './pages/html.js';
import { PAGES, audioOf, choiceOf, selfTileOf, type PageChoice } from './pages/platforms.js';
import { MeetingRegistry } from './registry.js';
import { startServer } from './server.js';
import { zoomInvitation } from './zoom-routes.js';

export { correctedTurn, growWords } from './captions.js';
export { MAX_WRAPPERS, seedFromEnv, variantSeeds } from './markup.js';
export { audioOf, choiceOf, selfTileOf, type PageChoice } from './pages/platforms.js';
export { SPEECH_LEAD_MS, type SayOptions } from './meeting.js';
export { VOICES, type Voice } from './speech.js';
/** The ways a page load may deliver the call's audio (one of each is drawn per seed, both platforms). */
export { AUDIO_CHOICES, AUDIO_IDLE_CHOICES, INTERSTITIALS, interstitialOf } from './pages/html.js';
export { CHAT_CHOICES } from './pages/html.js';
export { chatOf, type SimChat, type SimChatMessage } from './chat.js';
/** The ways a Meet page load may mark the bot's own tile (one is drawn per seed). */
export const MEET_CHOICES = PAGES.google_meet.choices;
/** The ways a Teams page load may label the bot's own tile (one is drawn per seed). */
export const TEAMS_CHOICES = PAGES.teams.choices;
/** What a seed's Teams page loads draw for each of TEAMS_CHOICES. */
export const teamsChoicesOf = PAGES.teams.choicesOf;
/** The ways a Zoom page load may be drawn (its self label, caption overlay, controls, wordings...). */
export const ZOOM_CHOICES = PAGES.zoom.choices;
/** What a seed's Zoom page loads draw for each of ZOOM_CHOICES. */
export const zoomChoicesOf = PAGES.zoom.choicesOf;
export type ZoomChoices = ReturnType<typeof zoomChoicesOf>;

/**
 * Zoom's pre-join as its builds have drawn it (the field notes' Zoom section), one named pin of
 * ZOOM_CHOICES each (seedWithZoomChoices): what the whole-stack case and the bench run through.
 */
export const ZOOM_PREJOIN_VARIANTS: ReadonlyArray<readonly [string, Partial<ZoomChoices>]> = [
  ['React ids', { nameField: 'react', passcodeField: 'react', redirect: 'none' }],
  ['the classic client (redirected)', { redirect: 'classic' }],
  ['placeholder-only', { nameField: 'placeholder', passcodeField: 'placeholder', redirect: 'none' }],
  ['label-only', { nameField: 'label', passcodeField: 'label', fieldLabel: 'beside', redirect: 'none' }],
  ['an unknown id', { nameField: 'unknownId', passcodeField: 'unknownId', redirect: 'none' }],
  ['permission twice, OneTrust', { permission: 'twice', cookies: 'onetrust' }],
  ['terms, a cookie bar', { terms: 'agreeThenJoin', cookies: 'banner' }],
  ['the client in iframe#webclient', { clientFrame: 'iframe', redirect: 'none' }],
  ['a script redirect to another host', { redirect: 'script' }],
];

/**
 * The first seed from `from` on whose Zoom page loads draw every choice `pinned` names, e.g.
 * `{ nameField: 'label', fieldLabel: 'beside', clientFrame: 'iframe' }`: a meeting created with
 * it as its markupSeed serves that pre-join on every load.
 */
export function seedWithZoomChoices(pinned: Partial<ZoomChoices>, from: number): number {
  return seedWithChoices('zoom', pinned, from);
}

/**
 * The first seed from `from` on whose page loads of `platform` draw every choice `pinned` names,
 * e.g. Teams' `{ app: 'light', lightRedirect: 'once' }` (seedWithChoice pins one).
 */
export function seedWithChoices(platform: SimPlatform, pinned: Record<string, string>, from: number): number {
  const wanted = Object.entries(pinned);
  for (const [choice, value] of wanted)
    if (!choicesOf(platform)[choice]?.includes(value))
      throw new Error(`${platform} pages never draw ${choice} ${value}`);
  for (let seed = from >>> 0, tries = 0; tries < 1_000_000; seed = (seed + 1) >>> 0, tries++) {
    const drawn = drawnOf(platform, seed);
    if (wanted.every(([choice, value]) => drawn[choice] === value)) return seed;
  }
  throw new Error(`no ${platform} seed draws ${JSON.stringify(pinned)}`);
}
export { ZOOM_OTHER_HOST, zoomInvitation, zoomLinkForms, zoomPwd } from './zoom-routes.js';
export { lightLaunchesOf } from './guest-api.js';
export { videoTruth, type VideoSessionTruth } from './media/video.js';
export { mediaServerPids } from './media/server.js';
export { MEET_CAPTION_LANGUAGES, TEAMS_CAPTION_LANGUAGES, ZOOM_CAPTION_LANGUAGES } from './types.js';
export type { TruthSegment } from './captions.js';
export type { CaptionTurn } from './turn.js';
export type { SimMeeting } from './meeting.js';
export type { SimAccount, StorageState } from './accounts.js';
export {
  defaultMeetingOptions,
  type AudioEvent,
  type AudioVariation,
  type BotRecord,
  type GroundTruth,
  type MeetingOptions,
  type NameSuffix,
  type ParticipantRecord,
  type SimPlatform,
  type Utterance,
  type UtterancePlay,
  type ZoomPrejoinAnswers,
} from './types.js';

export interface Simulator {
  port: number;
  /** Base URL of the HTTP control API. */
  controlUrl: string;
  /** Chromium flags that send the platforms' host names here and accept the simulator's certificate. */
  hostResolverRules(): string[];
  /** The meeting with this native id (created on first use), optionally (re)configured. */
  meeting(id: string, options?: Partial<MeetingOptions>): SimMeeting;
  /** The join link a user would paste for the meeting (Zoom: the us05web launch page, with pwd when it has a passcode). */
  url(platform: SimPlatform, id: string): string;
  /** A signed-in account of the platform, with its session as Playwright's storageState. */
  account(platform: SimPlatform, name: string, email: string): SimAccount;
  /** The platform stops accepting the account's session: its pages go to the sign-in page. */
  signOut(email: string): void;
  close(): Promise<void>;
}

export async function startSimulator(): Promise<Simulator> {
  const registry = new MeetingRegistry();
  const server = await startServer(registry);
  const target = `127.0.0.1:${server.port}`;
  return {
    port: server.port,
    controlUrl: `https://${target}/_sim/control`,
    hostResolverRules: () => [
      // Everything else resolves nowhere: a simulated page must never reach the real internet.
      `--host-resolver-rules=${SIMULATED_HOSTS.map((host) => `MAP ${host} ${target}`).join(', ')}, MAP * ~NOTFOUND`,
      '--ignore-certificate-errors',
    ],
    meeting: (id, options) => registry.meeting(id, options),
    url: (platform, id) => (platform === 'zoom' ? zoomInvitation(registry.meeting(id)) : joinUrl(platform, id)),
    account: (platform, name, email) => registry.accounts.create(platform, name, email),
    signOut: (email) => registry.accounts.signOut(email),
    close: () => server.close(),
  };
}

/** The wrapper elements a seed draws at each level of a platform's pages. */
export function wrappersOf(platform: SimPlatform, seed: number): Record<string, number> {
  const levels: readonly string[] = PAGES[platform].levels;
  return drawMarkup(seed, [], levels).wrappers;
}

/** The first seed from `from` on whose page loads mark the bot's own tile as `selfTile`. */
export function seedWithSelfTile(platform: SimPlatform, selfTile: string, from: number): number {
  const ways: readonly string[] = PAGES[platform].choices.selfTile;
  if (!ways.includes(selfTile)) throw new Error(`${platform} pages never mark the bot's tile as ${selfTile}`);
  return firstSeed(from, (seed) => selfTileOf(platform, seed) === selfTile);
}

/**
 * The first seed from `from` on whose page loads draw `value` for `choice` (e.g. speakingMark
 * 'label'), a choice of every platform's or of this one's (joinChoicesOf).
 */
export function seedWithChoice(platform: SimPlatform, choice: string, value: string, from: number): number {
  const ways = choicesOf(platform)[choice];
  if (!ways?.includes(value)) throw new Error(`${platform} pages never draw ${choice} ${value}`);
  return firstSeed(from, (seed) => drawnOf(platform, seed)[choice] === value);
}

/** The ways a platform's page loads may draw `choice` (none for a choice it does not have). */
export function waysOf(platform: SimPlatform, choice: string): readonly string[] {
  return choicesOf(platform)[choice] ?? [];
}

const choicesOf = (platform: SimPlatform) => PAGES[platform].choices as Record<string, readonly string[]>;
const drawnOf = (platform: SimPlatform, seed: number) => PAGES[platform].choicesOf(seed) as Record<string, string>;

/**
 * How a platform's join flow may be drawn, by choice: every way each of Meet's and Teams' join
 * choices goes (the name field, join wording, launcher, pop-ups, lobby wording...; see their pages'
 * `choices`), for a test that joins once on each.
 */
export function joinChoicesOf(platform: SimPlatform): Record<string, readonly string[]> {
  const choices = choicesOf(platform);
  const join = JOIN_CHOICES[platform];
  return Object.fromEntries(join.map((choice) => [choice, choices[choice]]));
}

const JOIN_CHOICES: Record<SimPlatform, readonly string[]> = {
  google_meet: [
    'nameField',
    'joinWording',
    'controlElement',
    'otherWays',
    'prejoinPopup',
    'joinInterstitial',
    'lobbyWording',
    'toolbar',
    'effectsTile',
  ],
  teams: ['launcher', 'app', 'nameField', 'deviceModal', 'audioOptions', 'lobbyWording'],
  zoom: [],
};

/**
 * The wordings of each platform's guests-refused screen, drawn per page load: Meet's and Teams'
 * `refusal` choice (their clients' REFUSALS), Zoom's `wording` (every wall of its own).
 */
export const REFUSAL_WORDINGS = wordingsOf('refusal');

/**
 * The wordings of each platform's not-found, removed, ended and lobby screens, drawn per page load:
 * Meet's and Teams' `screenWording` (their clients' SCREEN_WORDS), Zoom's `wording` (every
 * screen of its own).
 */
export const SCREEN_WORDINGS = wordingsOf('screenWording');

/** The first seed from `from` on whose page loads word the guests-refused screen as `wording` (REFUSAL_WORDINGS). */
export function seedWithRefusal(platform: SimPlatform, wording: string, from: number): number {
  return seedWithWording(platform, 'refusal', wording, from);
}

/** The first seed from `from` on whose page loads word those screens as `wording` (SCREEN_WORDINGS). */
export function seedWithScreenWording(platform: SimPlatform, wording: string, from: number): number {
  return seedWithWording(platform, 'screenWording', wording, from);
}

/** A choice of Meet's and Teams' that words some of their screens; Zoom words every screen by its one `wording`. */
type Wording = keyof typeof WORDING_CHOICES;

function wordingsOf(wording: Wording): Record<SimPlatform, readonly string[]> {
  return {
    google_meet: PAGES.google_meet.choices[wording],
    teams: PAGES.teams.choices[wording],
    zoom: PAGES.zoom.choices.wording,
  };
}

/** What a seed's page loads drew for a wording. */
function wordingOf(platform: SimPlatform, wording: Wording, seed: number): string {
  return platform === 'zoom' ? PAGES.zoom.choicesOf(seed).wording : PAGES[platform].choicesOf(seed)[wording];
}

function seedWithWording(platform: SimPlatform, wording: Wording, value: string, from: number): number {
  if (!wordingsOf(wording)[platform].includes(value))
    throw new Error(`${platform} never words its ${wording} as ${value}`);
  return firstSeed(from, (seed) => wordingOf(platform, wording, seed) === value);
}

/** The first seed from `from` on (wrapping past 2^32 - 1) whose page loads `draws` holds for. */
function firstSeed(from: number, draws: (seed: number) => boolean): number {
  for (let seed = from >>> 0; ; seed = (seed + 1) >>> 0) if (draws(seed)) return seed;
}

/** The first seed from `from` on whose page loads deliver the call's audio as `audio` says. */
export function seedWithAudio(platform: SimPlatform, audio: Partial<AudioVariation>, from: number): number {
  const wanted = Object.entries(audio) as Array<[keyof AudioVariation, string]>;
  for (let seed = from >>> 0, tries = 0; tries < 100_000; seed = (seed + 1) >>> 0, tries++) {
    const drawn = audioOf(platform, seed);
    if (wanted.every(([key, value]) => drawn[key] === value)) return seed;
  }
  throw new Error(`${platform} pages never deliver audio as ${JSON.stringify(audio)}`);
}

/** "tracks late, change renegotiate, elements body": how a seed's page loads deliver the audio. */
export function describeAudio(platform: SimPlatform, seed: number): string {
  const { tracks, change, elements, idle } = audioOf(platform, seed);
  return `tracks ${tracks}, change ${change}, elements ${elements}, idle ${idle}`;
}

/**
 * "seed 7 (SIM_SEED=7; self tile: you; audio: tracks late, change none, elements body; speaking:
 * level; captions refused: absent; wrappers: region 2, list 0, ...)": a variant as a failure
 * message names it.
 */
export function describeMarkup(platform: SimPlatform, seed: number): string {
  const wrappers = Object.entries(wrappersOf(platform, seed)).map(([level, n]) => `${level} ${n}`);
  const audio = describeAudio(platform, seed);
  const marks = `speaking: ${choiceOf(platform, seed, 'speakingMark')}; captions refused: ${choiceOf(platform, seed, 'captionsRefused')}`;
  const drawn = drawnOf(platform, seed);
  const join = JOIN_CHOICES[platform].map((choice) => `${choice} ${drawn[choice]}`);
  const joinPart = join.length ? `; join: ${join.join(', ')}` : '';
  return `seed ${seed} (SIM_SEED=${seed}; self tile: ${selfTileOf(platform, seed)}; audio: ${audio}; ${marks}${joinPart}; wrappers: ${wrappers.join(', ')})`;
}

function joinUrl(platform: SimPlatform, id: string): string {
  if (platform === 'google_meet') return `https://meet.google.com/${id}`;
  if (/^\d+$/.test(id)) return `https://teams.live.com/meet/${id}?p=SimPass42`;
  const context = encodeURIComponent(
    JSON.stringify({ Tid: '72f988bf-86f1-41af-91ab-2d7cd011db47', Oid: '4a3d1f6e-0000-4000-8000-000000000000' }),
  );
  return `https://teams.microsoft.com/l/meetup-join/${encodeURIComponent(id)}/0?context=${context}`;
}
