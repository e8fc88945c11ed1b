/** Each platform's pages (class roles, wrapper levels, the choices a seed draws; see html.ts), by platform. */
import type { SimPlatform } from '../types.js';
import { meetPages } from './meet.js';
import { teamsPages } from './teams.js';

export const PAGES = { google_meet: meetPages, teams: teamsPages } satisfies Record<SimPlatform, unknown>;

/** How a seed's page loads mark the bot's own tile (see MEET_CHOICES, TEAMS_CHOICES). */
export function selfTileOf(platform: SimPlatform, seed: number): string {
  return PAGES[platform].choicesOf(seed).selfTile;
}
