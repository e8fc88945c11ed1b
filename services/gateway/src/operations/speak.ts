/** speak: declared in the contracts (capabilities/speech.ts), answered by meeting-session's registry. */
import { speak as speakCapability } from '@notetaker/contracts';
import { forwarded } from './operation.js';

export const speak = forwarded(speakCapability);
