/**
 * Teams' microphone button (FIELD-NOTES, Teams §7): "Mute mic" / "Unmute mic" (AT), plain "Mute" /
 * "Unmute" on `#microphone-button` in other builds, with a shortcut hint some builds append.
 */
import type { MicrophoneWordings } from '../page-scripts/microphone-toggle.js';

export const TEAMS_MICROPHONE: MicrophoneWordings = {
  on: [/^mute( mic| microphone)?\b/i],
  off: [/^unmute( mic| microphone)?\b/i],
};
