/**
 * REST bodies (docs/api/openapi.json is generated from them). Request schemas are strict (unknown
 * fields are a 400) and carry the messages a caller sees; response schemas document and test what we answer. Each area
 * is a module of rest/; this one gathers them, so importers name './rest.js' alone.
 */
export { isoTimestamp } from './events.js';
export * from './rest/projects.js';
export * from './rest/meetings.js';
export * from './rest/recordings.js';
export * from './rest/transcription.js';
export * from './rest/transcripts.js';
export * from './rest/meeting-events.js';
export * from './rest/deliveries.js';
export * from './rest/tasks.js';
export * from './rest/errors.js';
export * from './rest/calendars.js';
export * from './rest/chat.js';
export * from './rest/speech.js';
