/**
 * The meetings an account started from the browser, newest first: meeting-session lists only live
 * meetings, and the meetings page also links the ones that ended to their transcript and document.
 */
import type { Collection, Store } from '@notetaker/store';

export interface UiMeetingRecord {
  _id: string;
  accountId: string;
  title: string | null;
  project: string;
  saveTranscript: boolean;
  startedAt: string;
  [key: string]: unknown;
}

export class UiMeetings {
  private readonly meetings: Collection<UiMeetingRecord>;

  constructor(store: Store) {
    this.meetings = store.collection<UiMeetingRecord>('web_meetings');
  }

  async init(): Promise<void> {
    await this.meetings.createIndex({ accountId: 1, startedAt: -1 });
  }

  async record(meeting: UiMeetingRecord): Promise<void> {
    const { _id, ...fields } = meeting;
    await this.meetings.updateOne({ _id }, { $set: fields }, { upsert: true });
  }

  /** True when this account started the meeting here (its meeting page opens for it). */
  async startedBy(accountId: string, meetingId: string): Promise<boolean> {
    return (await this.meetings.findOne({ _id: meetingId, accountId })) !== null;
  }

  async recent(accountId: string, limit = 10): Promise<UiMeetingRecord[]> {
    return this.meetings.find({ accountId }, { sort: { startedAt: -1 }, limit });
  }
}
