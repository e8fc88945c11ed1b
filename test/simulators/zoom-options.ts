/**
 * A Zoom meeting's settings in the words Zoom's own settings use, mapped onto the simulator's
 * options shared by every platform: the waiting room is the lobby, "only authenticated users can
 * join" refuses guests (on Zoom's sign-in page, or its refusal screen with `signedInOnly: 'screen'`).
 * passcode, started, botWall and captionsAllowed are options of their own and pass through as they are.
 */
import type { MeetingOptions } from './types.js';

export interface ZoomSettings {
  waitingRoom?: boolean;
  signedInOnly?: boolean | 'screen';
}

export function zoomOptions(body: Record<string, unknown>): Partial<MeetingOptions> {
  const { waitingRoom, signedInOnly, ...rest } = body as ZoomSettings & Record<string, unknown>;
  const options: Partial<MeetingOptions> = { ...(rest as Partial<MeetingOptions>) };
  if (typeof waitingRoom === 'boolean') options.lobby = waitingRoom;
  if (signedInOnly === true) options.guests = 'refused_sign_in';
  if (signedInOnly === 'screen') options.guests = 'refused_screen';
  if (signedInOnly === false) options.guests = 'allowed';
  return options;
}
