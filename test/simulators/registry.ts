/** The simulated meetings by native id, and which meeting each bot page belongs to. */
import type { ServerResponse } from 'node:http';
import { AccountBook } from './accounts.js';
import { SimMeeting } from './meeting.js';
import type { MeetingOptions } from './types.js';

export class MeetingRegistry {
  private readonly meetings = new Map<string, SimMeeting>();
  private readonly guests = new Map<string, SimMeeting>();
  private readonly streams = new Set<ServerResponse>();
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

  trackStream(res: ServerResponse): void {
    this.streams.add(res);
    res.on('close', () => this.streams.delete(res));
  }

  closeStreams(): void {
    for (const res of this.streams) res.end();
  }
}
