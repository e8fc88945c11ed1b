/**
 * The control API over HTTP, for tests that run the simulator in another process. It is served on
 * https://127.0.0.1:<port>/_sim/control/ (the platform host names never reach it) and maps onto
 * the SimMeeting methods:
 *
 *   POST   meetings/:id                      options         configure (creates the meeting); Zoom's own
 *                                                           names too: waitingRoom, signedInOnly (see zoomOptions)
 *   POST   meetings/:id/start                               Zoom: the host starts the meeting
 *   POST   meetings/:id/admit | deny | no-answer | remove-bot | end
 *   POST   meetings/:id/participants        {name, suffix?} someone joins (Teams suffix: Guest, External, Unverified)
 *   DELETE meetings/:id/participants/:name                  someone leaves
 *   POST   meetings/:id/present             {name, on?}     someone starts (on: false stops) presenting
 *   POST   meetings/:id/turns               {speaker}       -> {turn}
 *   POST   meetings/:id/turns/:turn         {show?, dropHead?, split?: moveLastWords, remove?} -> {turn}
 *   POST   meetings/:id/speak               {speaker, steps, stepMs?} -> {turn} once played
 *   POST   meetings/:id/say                 {speaker, text, captions?} -> {utterance} once spoken
 *   POST   meetings/:id/captions-allowed    {allowed}       the host turns captions off (false) or back on
 *   GET    meetings/:id/truth                               ground truth
 *   POST   meetings/:id/chat                {sender, text}  someone writes in the chat; GET: the chat (chat.ts)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson, sendJson } from './http.js';
import type { MeetingRegistry } from './registry.js';
import { NAME_SUFFIXES, type MeetingOptions, type NameSuffix } from './types.js';
import type { CaptionTurn } from './turn.js';
import { zoomOptions } from './zoom-options.js';
import { handleChatControl } from './chat.js';

export async function handleControlApi(
  registry: MeetingRegistry,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const parts = url.pathname.split('/').slice(3).map(decodeURIComponent);
  if (parts[0] !== 'meetings' || !parts[1]) return sendJson(res, 404, { error: 'no such control route' });
  const meeting = registry.meeting(parts[1]);
  const action = parts[2] ?? '';
  const body = req.method === 'POST' ? await readJson(req) : {};
  try {
    switch (`${req.method} ${action}`) {
      case 'POST ':
        meeting.configure(zoomOptions(body) as Partial<MeetingOptions>);
        return sendJson(res, 200, { meetingId: meeting.id, options: meeting.options });
      case 'POST start':
        meeting.start();
        break;
      case 'POST admit':
        meeting.admit();
        break;
      case 'POST deny':
        meeting.deny();
        break;
      case 'POST no-answer':
        meeting.noAnswer();
        break;
      case 'POST remove-bot':
        meeting.removeBot();
        break;
      case 'POST end':
        meeting.end();
        break;
      case 'POST participants':
        return sendJson(res, 200, { id: meeting.join(String(body.name), { suffix: suffixOf(body.suffix) }) });
      case 'DELETE participants':
        meeting.leave(parts[3] ?? '');
        break;
      case 'POST present':
        meeting.present(String(body.name), body.on !== false);
        break;
      case 'POST turns':
        if (parts[3]) return sendJson(res, 200, { turn: changeTurn(meeting.turn(Number(parts[3])), body) });
        return sendJson(res, 200, { turn: meeting.caption(String(body.speaker)).blockId });
      case 'POST speak': {
        const steps = (body.steps as string[]) ?? [];
        const turn = await meeting.speak(String(body.speaker), steps, Number(body.stepMs ?? 60));
        return sendJson(res, 200, { turn: turn.blockId });
      }
      case 'POST say': {
        const captions = typeof body.captions === 'boolean' ? body.captions : undefined;
        const utterance = await meeting.say(String(body.speaker), String(body.text ?? ''), { captions });
        return sendJson(res, 200, { utterance });
      }
      case 'POST captions-allowed':
        if (typeof body.allowed !== 'boolean') throw new Error('allowed must be true or false');
        meeting.setCaptionsAllowed(body.allowed);
        break;
      case 'GET truth':
        return sendJson(res, 200, meeting.truth());
      case 'POST chat':
      case 'GET chat':
        return handleChatControl(meeting, req.method ?? 'GET', body, res);
      default:
        return sendJson(res, 404, { error: `no control route ${req.method} ${action}` });
    }
    return sendJson(res, 200, {});
  } catch (error) {
    return sendJson(res, 400, { error: (error as Error).message });
  }
}

function changeTurn(turn: CaptionTurn, body: Record<string, unknown>): number {
  if (typeof body.show === 'string') turn.show(body.show);
  if (typeof body.dropHead === 'number') turn.dropHead(body.dropHead);
  if (body.remove === true) turn.remove();
  if (typeof body.split === 'number') return turn.split(body.split).blockId;
  return turn.blockId;
}

function suffixOf(value: unknown): NameSuffix | null {
  if (value === undefined || value === null) return null;
  if ((NAME_SUFFIXES as readonly unknown[]).includes(value)) return value as NameSuffix;
  throw new Error(`suffix must be Guest, External or Unverified, not ${JSON.stringify(value)}`);
}
