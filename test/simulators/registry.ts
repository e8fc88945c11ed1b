/** The simulated meetings by native id, and which meeting each bot page belongs to. */
import type { ServerResponse } from 'node:http';
import { AccountBook } from './accounts.js';
import { SimMeeting } from './meeting.js';
import type { MeetingOptions } from './types.js';

export class MeetingRegistry {
  private readonly meetings = new Map<string, SimMeeting>();
  private readonly guests = new Map<string, SimMeeting>();
  private readonly streams = new Set<ServerResponse>();
  private readonly channels = new Map<string, { send: (event: string) => void; gone: Set<() => void> }>();
  readonly accounts = new AccountBook();

  /** The meeting with this id, created on first use (a page or a test may come first). */
  meeting(id: string, options?: Partial<MeetingOptions>): SimMeeting {
    let meeting = this.meetings.get(id);
    if (!meeting) {
      meeting = new SimMeeting(id, options);
      this.meetings.set(id, meeting);
    } else if (options) {
      meeting.configure(options);
    }
    return meeting;
  }

  indexGuest(guestId: string, meeting: SimMeeting): void {
    this.guests.set(guestId, meeting);
  }

  meetingOfGuest(guestId: string): SimMeeting | undefined {
    return this.guests.get(guestId);
  }

  /**
   * A bot page's event stream, for more than its views: `send(event)` writes a named event the
   * page listens for (the media server's "call-audio": it has something for the page). Returns
   * what to call once the stream closed (the page is gone: whenGone's listeners run).
   */
  openChannel(guestId: string, send: (event: string) => void): () => void {
    const channel = { send, gone: new Set<() => void>() };
    this.channels.set(guestId, channel);
    return () => {
      if (this.channels.get(guestId) === channel) this.channels.delete(guestId);
      for (const listener of channel.gone) listener();
    };
  }

  /** Writes `event` on the guest's event stream, if it has one open. */
  poke(guestId: string, event: string): void {
    this.channels.get(guestId)?.send(event);
  }

  /** Calls `listener` once the guest's event stream closes (now, if none is open); returns what stops it. */
  whenGone(guestId: string, listener: () => void): () => void {
    const channel = this.channels.get(guestId);
    if (!channel) {
      listener();
      return () => {};
    }
    channel.gone.add(listener);
    return () => channel.gone.delete(listener);
  }

  trackStream(res: ServerResponse): void {
    this.streams.add(res);
    res.on('close', () => this.streams.delete(res));
  }

  closeStreams(): void {
    for (const res of this.streams) res.end();
  }
}
