export * from './errors.js';
// svc() and broadcastSubject() stay inside: a request or broadcast subject is an entry of routes.ts.
export {
  actorMeeting,
  evtMcpChange,
  evtMeeting,
  instanceSubject,
  noticeMeeting,
  queueGroup,
  SERVICES,
  type ServiceName,
} from './subjects.js';
export * from './rest.js';
export * from './reasons.js';
export * from './events.js';
export * from './identity.js';
export * from './messages.js';
export * from './routes.js';
export * from './capability.js';
export * from './capabilities/index.js';
