/** Each platform's pages (class roles, wrapper levels, the choices a seed draws; see html.ts), by platform. */
import type { AudioVariation, SimPlatform } from '../types.js';
import { meetPages } from './meet.js';
import { teamsPages } from './teams.js';

export const PAGES = { google_meet: meetPages, teams: teamsPages } satisfies Record<SimPlatform, unknown>;

/** How a seed's page loads mark the bot's own tile (see MEET_CHOICES, TEAMS_CHOICES). */
export function selfTileOf(platform: SimPlatform, seed: number): string {
  return PAGES[platform].choicesOf(seed).selfTile;
}

/** How a seed's page loads deliver the call's audio (see AudioVariation). */
export function audioOf(platform: SimPlatform, seed: number): AudioVariation {
  const drawn = PAGES[platform].choicesOf(seed);
  return { tracks: drawn.audioTracks, change: drawn.audioChange, elements: drawn.audioElements };
}
