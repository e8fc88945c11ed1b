/**
 * svc.meetings.start, the registry's part: check the caller may, take the meeting's identity,
 * reserve the document, register the callback, and place the bot (its actor) on a worker with room. Any step failing undoes the
 * earlier ones: the caller gets no meetingId and the URL stays free.
 */
import {
  errors,
  routes,
  ServiceError,
  type Caller,
  type ParsedRequestOf,
  type RecordingMode,
  type ReplyOf,
} from '@notetaker/contracts';
import { call, type Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import { newMeetingId } from '../ids.js';
import { parseMeetingUrl } from '../meeting-url.js';
import { protocol, type PlaceRequest } from '../protocol.js';
import { ownerOf, type MeetingDoc, type Records } from './records.js';
import type { AccountPicker, GrantedAccount } from './account-picker.js';

export interface LaunchDeps {
  bus: Bus;
  records: Records;
  accounts: AccountPicker;
  logger: Logger;
  /** A start refused because every seat of every worker was taken (a metric). */
  onRefusedForCapacity?: () => void;
  /** A start's `recording` when it names none. */
  recordingDefault: RecordingMode;
  /** A speech engine is configured (STT_BASE_URL): `transcription: audio` can be had. */
  speechEngine: boolean;
}

const KNOWLEDGE_WRITE_MESSAGE =
  'Saving a transcript needs the knowledge:write capability, which this API key lacks (start with saveTranscript: false to stream events only)';
const PLACE_ATTEMPTS = 4;
const NO_SPEECH_ENGINE =
  'transcription "audio" needs a speech engine, and this service has none: set STT_BASE_URL (docs/services/meeting-session.md)';

/**
 * `input` is parsed already (answer() of routes.meetings.start, start_meeting's route: its defaults
 * are filled in). A field left out that has no default is this service's to decide: none for the
 * title, the language and the passcode, the worker's coach, RECORDING_DEFAULT.
 */
export async function launchBot(
  deps: LaunchDeps,
  input: ParsedRequestOf<typeof routes.meetings.start>,
): Promise<ReplyOf<typeof routes.meetings.start>> {
  if (input.saveTranscript && !mayWriteKnowledge(input.caller)) throw errors.forbidden(KNOWLEDGE_WRITE_MESSAGE);
  const target = parseMeetingUrl(input.url);
  const { transcription } = input;
  const title = input.title ?? null;
  const language = input.language ?? null;
  if (transcription === 'audio' && !deps.speechEngine) throw errors.badRequest(NO_SPEECH_ENGINE, 'transcription');
  // No live worker can launch a bot's browser: refuse before any record or claim (issue 32).
  if ((await deps.records.botsAvailable()) === false) throw errors.noBrowser();
  const startedAt = new Date();
  const doc: MeetingDoc = {
    _id: newMeetingId(startedAt.getTime()),
    ...ownerOf(input.caller),
    platform: target.platform,
    identityKey: target.identityKey,
    title,
    project: input.project,
    saveTranscript: input.saveTranscript,
    documentPath: null,
    status: 'joining',
    reason: null,
    startedAt: startedAt.toISOString(),
    endedAt: null,
    participantCount: 0,
    segmentCount: 0,
    participants: [],
    workerId: null,
    language,
    transcription: { mode: transcription, source: null },
    accountId: null,
    signedInAs: null,
  };
  const { records, bus } = deps;
  // The record goes first: a claim then always points at a record (see Records.claim).
  await records.meetings.insertOne(doc);
  try {
    await records.claim(target.identityKey, doc._id);
  } catch (err) {
    await records.meetings.deleteOne({ _id: doc._id });
    throw err;
  }
  try {
    const account = input.signIn === 'always' ? await signedInFromStart(deps, doc) : null;
    const { callbackUrl } = input;
    const tokenId = input.caller.kind === 'token' ? input.caller.tokenId : null;
    // Neither needs the other: the document is reserved while the callback is registered.
    const [opened] = await Promise.all([
      dependency('Transcript storage', () =>
        call(bus, routes.transcripts.open, {
          meetingId: doc._id,
          project: doc.project,
          title: doc.title,
          platform: doc.platform,
          startedAt: doc.startedAt,
          saveTranscript: doc.saveTranscript,
          language,
        }),
      ),
      callbackUrl !== null &&
        dependency('Callback delivery', () =>
          call(bus, routes.webhooks.register, { meetingId: doc._id, callbackUrl, tokenId }),
        ),
    ]);
    doc.documentPath = doc.saveTranscript ? opened.documentPath : null;
    const workerId = await place(deps, {
      meetingId: doc._id,
      platform: target.platform,
      joinUrl: target.joinUrl,
      title: doc.title,
      saveTranscript: doc.saveTranscript,
      signIn: input.signIn,
      language,
      passcode: input.passcode ?? null,
      account,
      coach: input.coach ?? null,
      recording: input.recording ?? deps.recordingDefault,
      transcription,
      announcement: input.announcement ?? null,
    });
    // The actor may already have written: only fill what is still unset.
    await records.meetings.updateOne({ _id: doc._id }, { $set: { documentPath: doc.documentPath, workerId } });
  } catch (err) {
    await deps.accounts.release(doc._id);
    await records.release(target.identityKey, doc._id);
    await records.meetings.deleteOne({ _id: doc._id });
    throw err;
  }
  deps.logger.info({ meetingId: doc._id, platform: doc.platform }, 'meeting started');
  return {
    meetingId: doc._id,
    status: 'joining',
    platform: doc.platform,
    project: doc.project,
    documentPath: doc.documentPath,
  };
}

const ACCOUNT_RETRY_AFTER_S = 30;

/**
 * `signIn: always`: a slot of a bot account before the bot is placed. Every account busy is a
 * full service (503, Retry-After); no usable account at all is the operator's to fix (409).
 */
async function signedInFromStart(deps: LaunchDeps, doc: MeetingDoc): Promise<GrantedAccount> {
  const taken = await deps.accounts.take(doc.platform, doc._id);
  if ('refused' in taken) {
    if (taken.refused === 'busy') {
      throw new ServiceError(
        'accounts_busy',
        `Every ${doc.platform} bot account is in as many meetings as it may; retry in ${ACCOUNT_RETRY_AFTER_S} s`,
        503,
        true,
        { retryAfterS: ACCOUNT_RETRY_AFTER_S },
      );
    }
    throw new ServiceError(
      'no_bot_account',
      `No ${doc.platform} bot account can sign in: add one with \`npm run cli -- bot-account add\` (or import a fresh session for a signed-out one)`,
      409,
      false,
      { field: 'signIn' },
    );
  }
  const { id, name } = taken.account;
  await deps.records.meetings.updateOne(
    { _id: doc._id },
    { $set: { accountId: id, signedInAs: name, triedAccounts: [id] } },
  );
  return taken.account;
}

/** The browser UI acts for the instance's operator; a key needs the capability. */
function mayWriteKnowledge(caller: Caller): boolean {
  return caller.kind === 'ui' || caller.capabilities.includes('knowledge:write');
}

/** A service the start needs is down or failing: the start fails as a whole, retryably. */
async function dependency<T>(what: string, ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (err) {
    if (err instanceof ServiceError && err.status < 500) throw err;
    throw errors.unavailable(`${what} is unavailable; try again`);
  }
}

/**
 * Asks the workers' queue group; a full worker declines (or has left the group, so nobody
 * answers), and the next ask reaches another. A worker whose seat is being freed answers once it
 * is. Beyond every seat: 503 `at_capacity` with the instance's seat count and a Retry-After.
 */
async function place(deps: LaunchDeps, request: PlaceRequest): Promise<string> {
  for (let attempt = 1; attempt <= PLACE_ATTEMPTS; attempt++) {
    try {
      const reply = await call(deps.bus, protocol.place, request, { timeoutMs: 10_000 });
      if (reply.accepted && reply.workerId) return reply.workerId;
    } catch (err) {
      const retryable = err instanceof ServiceError && err.code === 'no_responders';
      if (!retryable) throw errors.unavailable('No meeting worker answered; try again');
    }
    // A full worker leaves the queue group; give the group a moment to route elsewhere.
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
  }
  // The workers declined for want of a browser (lost since the check above): say so, not "busy".
  if ((await deps.records.botsAvailable()) === false) throw errors.noBrowser();
  const seats = await deps.records.liveSeats();
  if (seats === 0) throw errors.unavailable('No meeting worker is running; try again later');
  deps.onRefusedForCapacity?.();
  throw errors.atCapacity(seats);
}
