/**
 * Every bus subject is built here and nowhere else (namespace first, identifier last, lowercase),
 * so a typo cannot make two services talk past each other.
 */
export const SERVICES = [
  'gateway',
  'identity',
  'meetings',
  'transcripts',
  'projects',
  'tasks',
  'webhooks',
  'calendars',
] as const;
export type ServiceName = (typeof SERVICES)[number];

const TOKEN = /^[a-z0-9_-]+$/i;

function token(part: string): string {
  if (!TOKEN.test(part)) throw new Error(`Invalid subject token: ${JSON.stringify(part)}`);
  return part.toLowerCase();
}

/** Request/reply to a stateless service endpoint, served in a queue group (routes.ts names them all). */
export function svc(service: ServiceName, verb: string): string {
  return `svc.${service}.${token(verb)}`;
}

/** A notice every instance of a service hears (no reply, no queue group): apart from `svc.`. */
export function broadcastSubject(service: ServiceName, verb: string): string {
  return `broadcast.${service}.${token(verb)}`;
}

/** A command to the single live actor of one meeting. Meeting ids keep their case. */
export function actorMeeting(meetingId: string, verb: string): string {
  if (!TOKEN.test(meetingId)) throw new Error(`Invalid meeting id: ${JSON.stringify(meetingId)}`);
  return `actor.meeting.${meetingId}.${token(verb)}`;
}

/** A meeting's events; `type` '*' subscribes to every type of one meeting. */
export function evtMeeting(meetingId: string | '*', type: string | '*'): string {
  const id = meetingId === '*' ? '*' : meetingId;
  if (id !== '*' && !TOKEN.test(id)) throw new Error(`Invalid meeting id: ${JSON.stringify(meetingId)}`);
  return `evt.meeting.${id}.${type === '*' ? '*' : token(type)}`;
}

/**
 * A notice about one meeting that is not one of its events (no sequence, never a callback): its
 * caption warnings changed. Apart from `evt.`, so event consumers never see it.
 */
export function noticeMeeting(meetingId: string, kind: 'warnings'): string {
  if (!TOKEN.test(meetingId)) throw new Error(`Invalid meeting id: ${JSON.stringify(meetingId)}`);
  return `notice.meeting.${meetingId}.${kind}`;
}

/**
 * A request to one instance of a service, named by the id it chose at start: another instance
 * hands it work that instance owns (transcript-store: the appends of a recording whose writer's
 * lease it holds). Apart from `svc.`: never in a queue group, never a route another service calls.
 */
export function instanceSubject(service: ServiceName, instanceId: string, verb: string): string {
  return `instance.${service}.${token(instanceId)}.${token(verb)}`;
}

/** Queue group name for the instances of one service. */
export function queueGroup(service: ServiceName): string {
  return `q.${service}`;
}

/** MCP change events (tools, resources) a gateway publishes for the listeners of every gateway. */
export function evtMcpChange(): string {
  return 'evt.mcp.change';
}
