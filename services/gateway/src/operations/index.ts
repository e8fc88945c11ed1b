/**
 * Every capability of the API as the gateway serves it, in the contracts' order (API_CAPABILITIES,
 * which the OpenAPI document and tools/list follow). A capability's operation is the one an area
 * module here exports under its name (its gateway handler), else its route's (`forwarded`): a
 * capability its owning service answers needs nothing here.
 */
import { API_CAPABILITIES } from '@notetaker/contracts';
import * as calendars from './calendars.js';
import * as deliveries from './deliveries.js';
import * as events from './events.js';
import * as meetings from './meetings.js';
import { forwarded, isOperation, type Operation } from './operation.js';
import * as projects from './projects.js';
import * as recordings from './recordings.js';
import * as tasks from './tasks.js';
import * as transcripts from './transcripts.js';
import * as speech from './speak.js';

const AREAS = [meetings, transcripts, recordings, events, deliveries, projects, tasks, calendars, speech];

function byName(): Map<string, Operation> {
  const declared = new Set(API_CAPABILITIES.map((capability) => capability.name));
  const found = new Map<string, Operation>();
  for (const op of AREAS.flatMap((area) => Object.values(area)).filter(isOperation)) {
    if (!declared.has(op.name)) throw new Error(`operation ${op.name} is no capability of @notetaker/contracts`);
    found.set(op.name, op);
  }
  return found;
}

const handled = byName();

export const OPERATIONS: readonly Operation[] = API_CAPABILITIES.map(
  (capability) => handled.get(capability.name) ?? forwarded(capability),
);
