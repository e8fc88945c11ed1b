/**
 * Meet's microphone button (FIELD-NOTES, Google Meet §7): "Turn off microphone" / "Turn on
 * microphone" (a div or a button, with a shortcut hint after it: "(ctrl + d)"), German builds
 * "Mikrofon deaktivieren" / "Mikrofon aktivieren".
 */
import type { MicrophoneWordings } from '../page-scripts/microphone-toggle.js';

export const MEET_MICROPHONE: MicrophoneWordings = {
  on: [/^turn off microphone\b/i, /^mikrofon deaktivieren\b/i],
  off: [/^turn on microphone\b/i, /^mikrofon aktivieren\b/i],
};
