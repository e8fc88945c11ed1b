/**
 * Zoom's footer microphone (FIELD-NOTES, Zoom §7): aria "mute my microphone" / "unmute my
 * microphone", or the button's text "Mute" / "Unmute" in builds without the long label.
 */
import type { MicrophoneWordings } from '../page-scripts/microphone-toggle.js';

export const ZOOM_MICROPHONE: MicrophoneWordings = {
  on: [/^mute my microphone$/i, /^mute$/i],
  off: [/^unmute my microphone$/i, /^unmute$/i],
};
