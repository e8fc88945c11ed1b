/**
 * Zoom captions: the overlay shows the last few lines, one per utterance, a line's text growing
 * and revised while it is recognised, older lines leaving at the top: the window Teams' caption
 * list is, read by the same rules (a line final after `idleMs` unchanged, or once it leaves).
 * The lines carry their speaker already (the page script takes names from the full transcript
 * when the overlay shows avatars only).
 */
import { TeamsCaptionTracker, type TeamsCaptionRow } from '../teams/captions.js';

export type ZoomCaptionLine = TeamsCaptionRow;

export class ZoomCaptionTracker extends TeamsCaptionTracker {}
