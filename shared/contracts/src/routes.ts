/**
 * Every request/reply subject on the bus, with the schema of its request and of its reply, and
 * every broadcast with the schema of its message. A caller names an entry of this table, never a
 * subject string, so a request is typed end to end and its reply is checked where it arrives
 * (@notetaker/bus `call`); a server answers an entry with its request already parsed (`answer`).
 */
import type { z } from 'zod';
import {
  accountUsageReply,
  accountUsageRequest,
  botAccountReport,
  botAccountReportReply,
  botAccountSessionReply,
  botAccountSessionRequest,
  botAccountsReply,
  botAccountsRequest,
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
  meetingsStart,
  meetingsStatus,
  projectMeetingsRequest,
  projectsList,
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
  searchResponse,
  taskRef,
  tasksChangedNotice,
  tasksCreate,
  tasksHistory,
  tasksList,
  tasksPage,
  tasksRun,
  tasksUpdate,
  transcriptAppend,
  transcriptAppendReply,
  transcriptDocumentReply,
  transcriptDocumentRequest,
  transcriptFlush,
  transcriptOpen,
  transcriptOpenReply,
  transcriptSavedNotice,
  transcriptSearch,
  transcriptSegmentsReply,
  transcriptSegmentsRequest,
  webhookDeliveriesReply,
  webhookDeliveriesRequest,
  webhookRegister,
  webhookRegisterReply,
} from './messages.js';
import {
  historyResponse,
  meetingStatusResponse,
  projectMeetingsResponse,
  projectsResponse,
  runTaskResponse,
  startMeetingResponse,
  stopMeetingResponse,
  successResponse,
  taskDetailsResponse,
  taskResponse,
} from './rest.js';
import { broadcastSubject, svc, type ServiceName } from './subjects.js';

export interface Route<Req extends z.ZodType = z.ZodType, Rep extends z.ZodType = z.ZodType> {
  readonly subject: string;
  readonly request: Req;
  readonly reply: Rep;
}

export interface Broadcast<M extends z.ZodType = z.ZodType> {
  readonly subject: string;
  readonly message: M;
}

/** What a caller sends (defaults may be left out) and what it gets back, checked. */
export type RequestOf<R extends Route> = z.input<R['request']>;
export type ReplyOf<R extends Route> = z.output<R['reply']>;
/** What a server's handler receives (parsed, defaults filled) and must return. */
export type ParsedRequestOf<R extends Route> = z.output<R['request']>;
export type ReplyIn<R extends Route> = z.input<R['reply']>;

/** An entry of a routes table: the only place a verb is spelled. */
export function route<Req extends z.ZodType, Rep extends z.ZodType>(
  service: ServiceName,
  verb: string,
  request: Req,
  reply: Rep,
): Route<Req, Rep> {
  return { subject: svc(service, verb), request, reply };
}

export function broadcast<M extends z.ZodType>(service: ServiceName, verb: string, message: M): Broadcast<M> {
  return { subject: broadcastSubject(service, verb), message };
}

export const routes = {
  identity: {
    /** gateway: a token's signing secret, for the emitter's signatures. */
    signingSecret: route('identity', 'signing-secret', signingSecretRequest, signingSecretReply),
    /** gateway: a platform's bot accounts, without their sessions. */
    botAccounts: route('identity', 'bot-accounts', botAccountsRequest, botAccountsReply),
    /** gateway: one bot account's session, for meeting-session to join with. */
    botAccountSession: route('identity', 'bot-account-session', botAccountSessionRequest, botAccountSessionReply),
    /** gateway: what a bot saw of an account (signed out, the identity shown, last use). */
    botAccountReport: route('identity', 'bot-account-report', botAccountReport, botAccountReportReply),
  },
  meetings: {
    start: route('meetings', 'start', meetingsStart, startMeetingResponse),
    stop: route('meetings', 'stop', meetingRef, stopMeetingResponse),
    status: route('meetings', 'status', meetingsStatus, meetingStatusResponse),
    get: route('meetings', 'get', meetingRef, meetingRecord),
    events: route('meetings', 'events', meetingEventsRequest, meetingEventsReply),
    /** registry: live meetings per bot account (the accounts list's meetingsInUse). */
    accountUsage: route('meetings', 'account-usage', accountUsageRequest, accountUsageReply),
  },
  transcripts: {
    open: route('transcripts', 'open', transcriptOpen, transcriptOpenReply),
    append: route('transcripts', 'append', transcriptAppend, transcriptAppendReply),
    /** null when the meeting's transcript is not saved. */
    flush: route('transcripts', 'flush', transcriptFlush, documentSaved.nullable()),
    segments: route('transcripts', 'segments', transcriptSegmentsRequest, transcriptSegmentsReply),
    document: route('transcripts', 'document', transcriptDocumentRequest, transcriptDocumentReply),
    search: route('transcripts', 'search', transcriptSearch, searchResponse),
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
  projects: {
    list: route('projects', 'list', projectsList, projectsResponse),
    meetings: route('projects', 'meetings', projectMeetingsRequest, projectMeetingsResponse),
  },
  tasks: {
    create: route('tasks', 'create', tasksCreate, taskResponse),
    list: route('tasks', 'list', tasksList, tasksPage),
    get: route('tasks', 'get', taskRef, taskDetailsResponse),
    update: route('tasks', 'update', tasksUpdate, taskResponse),
    delete: route('tasks', 'delete', taskRef, successResponse),
    enable: route('tasks', 'enable', taskRef, taskResponse),
    disable: route('tasks', 'disable', taskRef, taskResponse),
    run: route('tasks', 'run', tasksRun, runTaskResponse),
    history: route('tasks', 'history', tasksHistory, historyResponse),
  },
  webhooks: {
    register: route('webhooks', 'register', webhookRegister, webhookRegisterReply),
    deliveries: route('webhooks', 'deliveries', webhookDeliveriesRequest, webhookDeliveriesReply),
  },
} as const;

export const broadcasts = {
  /** transcript-store -> every instance: segments now in a saved document, to index. */
  transcriptSaved: broadcast('transcripts', 'saved', transcriptSavedNotice),
  /** task-scheduler -> every instance: re-read this task and re-arm its timer. */
  taskChanged: broadcast('tasks', 'changed', tasksChangedNotice),
  /** gateway -> every gateway: an API key revoked or a web session ended; its open streams end. */
  grantEnded: broadcast('identity', 'grant-ended', grantEndedNotice),
} as const;
