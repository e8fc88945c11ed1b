/**
 * Every request/reply subject on the bus, with the schema of its request and of its reply, and
 * every broadcast with the schema of its message. A caller names an entry of this table, never a
 * subject string, so a request is typed end to end and its reply is checked where it arrives
 * (@notetaker/bus `call`); a server answers an entry with its request already parsed (`answer`).
 * A capability's route is derived from its declaration (capabilities/*.ts) and listed here by its
 * verb (`routesOf`); the other entries are the services' own, which no client calls.
 */
import { calendarChangedNotice } from './messages.js';
import {
  botAccountReport,
  botAccountReportReply,
  botAccountStorageStateReply,
  botAccountStorageStateRequest,
  botAccountsReply,
  botAccountsRequest,
  accountUsageReply,
  accountUsageRequest,
  grantEndedNotice,
  signingSecretReply,
  signingSecretRequest,
} from './identity.js';
import {
  documentSaved,
  meetingEventsReply,
  meetingEventsRequest,
  meetingRecord,
  meetingRef,
  recordingAppend,
  recordingAppendReply,
  recordingDeleteReply,
  recordingExpire,
  recordingExpireReply,
  recordingFinish,
  recordingRead,
  recordingReadReply,
  recordingRef,
  recordingReply,
  tasksChangedNotice,
  tasksList,
  tasksPage,
  transcriptAppend,
  transcriptAppendReply,
  transcriptDocumentReply,
  transcriptDocumentRequest,
  transcriptFlush,
  transcriptOpen,
  transcriptOpenReply,
  transcriptSavedNotice,
  transcriptSegmentsReply,
  transcriptSegmentsRequest,
  webhookRegister,
  webhookRegisterReply,
} from './messages.js';
import { routesOf } from './capability.js';
import {
  CALENDAR_CAPABILITIES,
  DELIVERY_CAPABILITIES,
  MEETING_CAPABILITIES,
  PROJECT_CAPABILITIES,
  TASK_CAPABILITIES,
  TRANSCRIPT_CAPABILITIES,
  CHAT_CAPABILITIES,
  SPEECH_CAPABILITIES,
} from './capabilities/index.js';
import { chatAppend, chatAppendReply, chatReply, chatRequest } from './rest/chat.js';
import { broadcast, route } from './route.js';

export * from './route.js';

export const routes = {
  identity: {
    /** gateway: a token's signing secret, for the emitter's signatures. */
    signingSecret: route('identity', 'signing-secret', signingSecretRequest, signingSecretReply),
    /** gateway: a platform's bot accounts, without their storage states. */
    botAccounts: route('identity', 'bot-accounts', botAccountsRequest, botAccountsReply),
    /** gateway: one bot account's storage state, for meeting-session to join with. */
    botAccountStorageState: route(
      'identity',
      'bot-account-session',
      botAccountStorageStateRequest,
      botAccountStorageStateReply,
    ),
    /** gateway: what a bot saw of an account (signed out, the identity shown, last use). */
    botAccountReport: route('identity', 'bot-account-report', botAccountReport, botAccountReportReply),
  },
  meetings: {
    /** start, stop, status */
    ...routesOf(MEETING_CAPABILITIES),
    get: route('meetings', 'get', meetingRef, meetingRecord),
    events: route('meetings', 'events', meetingEventsRequest, meetingEventsReply),
    /** registry: live meetings per bot account (the accounts list's meetingsInUse). */
    accountUsage: route('meetings', 'account-usage', accountUsageRequest, accountUsageReply),
    /** chat (send_chat_message) */
    ...routesOf(CHAT_CAPABILITIES),
    /** speak */
    ...routesOf(SPEECH_CAPABILITIES),
  },
  transcripts: {
    /** search */
    ...routesOf(TRANSCRIPT_CAPABILITIES),
    open: route('transcripts', 'open', transcriptOpen, transcriptOpenReply),
    append: route('transcripts', 'append', transcriptAppend, transcriptAppendReply),
    /** null when the meeting's transcript is not saved. */
    flush: route('transcripts', 'flush', transcriptFlush, documentSaved.nullable()),
    segments: route('transcripts', 'segments', transcriptSegmentsRequest, transcriptSegmentsReply),
    document: route('transcripts', 'document', transcriptDocumentRequest, transcriptDocumentReply),
    /** A meeting's chat messages (rest/chat.ts). */
    chatAppend: route('transcripts', 'chat-append', chatAppend, chatAppendReply),
    chat: route('transcripts', 'chat', chatRequest, chatReply),
  },
  /** transcript-store: meetings' audio files (the gateway checks who may read them first). */
  recordings: {
    append: route('transcripts', 'recording-append', recordingAppend, recordingAppendReply),
    finish: route('transcripts', 'recording-finish', recordingFinish, recordingReply),
    get: route('transcripts', 'recording', recordingRef, recordingReply),
    read: route('transcripts', 'recording-read', recordingRead, recordingReadReply),
    delete: route('transcripts', 'recording-delete', recordingRef, recordingDeleteReply),
    expire: route('transcripts', 'recording-expire', recordingExpire, recordingExpireReply),
  },
  /** list, meetings */
  projects: routesOf(PROJECT_CAPABILITIES),
  tasks: {
    /** create, get, update, delete, run, enable, disable, history */
    ...routesOf(TASK_CAPABILITIES),
    /** A page of tasks by name (list_tasks reads every page). */
    list: route('tasks', 'list', tasksList, tasksPage),
  },
  /** task-scheduler: connect, list, get, delete, events, event-join */
  calendars: routesOf(CALENDAR_CAPABILITIES),
  webhooks: {
    /** deliveries */
    ...routesOf(DELIVERY_CAPABILITIES),
    register: route('webhooks', 'register', webhookRegister, webhookRegisterReply),
  },
} as const;

export const broadcasts = {
  /** transcript-store -> every instance: segments now in a saved document, to index. */
  transcriptSaved: broadcast('transcripts', 'saved', transcriptSavedNotice),
  /** task-scheduler -> every instance: re-read this task and re-arm its timer. */
  taskChanged: broadcast('tasks', 'changed', tasksChangedNotice),
  /** task-scheduler -> every instance: a calendar was connected, removed or an event's choice changed. */
  calendarChanged: broadcast('calendars', 'changed', calendarChangedNotice),
  /** gateway -> every gateway: an API key revoked or a web session ended; its open streams end. */
  grantEnded: broadcast('identity', 'grant-ended', grantEndedNotice),
} as const;
