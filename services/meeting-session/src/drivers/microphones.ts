/** Each platform's microphone button wordings (drivers/<platform>/microphone.ts). */
import type { Platform } from '@notetaker/contracts';
import { MEET_MICROPHONE } from './google-meet/microphone.js';
import type { MicrophoneWordings } from './page-scripts/microphone-toggle.js';
import { TEAMS_MICROPHONE } from './teams/microphone.js';
import { ZOOM_MICROPHONE } from './zoom/microphone.js';

export const MICROPHONES: Record<Platform, MicrophoneWordings> = {
  google_meet: MEET_MICROPHONE,
  teams: TEAMS_MICROPHONE,
  zoom: ZOOM_MICROPHONE,
};
