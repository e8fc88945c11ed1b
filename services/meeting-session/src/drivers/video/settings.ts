/**
 * What the bot does so that it decodes no video it does not show (BOT_VIDEO_SAVINGS), and the
 * size of its window (BOT_WINDOW_SIZE): the platforms send video for the tiles a client shows, at
 * their size, so a smaller window is sent smaller video.
 *
 * - `platform`: the platform's own way for a participant who does not watch: Teams' More ->
 *   "Turn off incoming video", Zoom's More -> "Stop Incoming Video", Meet's More options ->
 *   "Change layout" -> "Tiled" with the fewest tiles;
 * - `hide`: remote <video> elements are not drawn (nothing composited for them);
 * - `inactive`: every video transceiver the page receives on is answered (or offered) inactive, so
 *   the server sends nothing and Chromium decodes nothing. A disabled track (enabled = false) is not
 *   enough: Chromium 156 still decodes its frames; only a renegotiated inactive transceiver stops them.
 *
 * Audio, captions, speakers and participants are read as before with any of them.
 */
import { z } from 'zod';

export const VIDEO_SAVINGS = ['platform', 'hide', 'inactive'] as const;
export type VideoSaving = (typeof VIDEO_SAVINGS)[number];

/** All of them: none costs the bot anything it reads. */
export const DEFAULT_VIDEO_SAVINGS: readonly VideoSaving[] = VIDEO_SAVINGS;
export const DEFAULT_WINDOW_SIZE = { width: 1280, height: 720 } as const;

export interface WindowSize {
  width: number;
  height: number;
}

/** "platform,hide,inactive" (any order, any subset), "none" or "" for none, "all" for every one. */
export const videoSavingsEnv = z
  .string()
  .trim()
  .max(200, 'must be at most 200 characters')
  .transform((text, ctx): VideoSaving[] => {
    if (text === 'all') return [...VIDEO_SAVINGS];
    if (text === '' || text === 'none') return [];
    const steps = text.split(',').map((s) => s.trim());
    for (const step of steps) {
      if (!(VIDEO_SAVINGS as readonly string[]).includes(step)) {
        ctx.addIssue({
          code: 'custom',
          message: `unknown step "${step}" (one of ${VIDEO_SAVINGS.join(', ')}, all, none)`,
        });
        return z.NEVER;
      }
    }
    return [...new Set(steps as VideoSaving[])];
  });

/** "1280x720": width and height in CSS pixels, 320x180 to 3840x2160. */
export const windowSizeEnv = z
  .string()
  .trim()
  .regex(/^\d{3,4}x\d{3,4}$/, 'must be WIDTHxHEIGHT, e.g. 1280x720')
  .transform((text, ctx): WindowSize => {
    const [width, height] = text.split('x').map(Number);
    if (width < 320 || height < 180 || width > 3840 || height > 2160) {
      ctx.addIssue({ code: 'custom', message: 'must be between 320x180 and 3840x2160' });
      return z.NEVER;
    }
    return { width, height };
  });
