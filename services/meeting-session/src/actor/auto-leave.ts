/**
 * The actor's auto-leave rules as timers: not admitted in time (lobby wait), alone with nobody
 * but the bot, and the maximum duration. A timer firing only posts a message to the actor.
 */
import type { MeetingSessionConfig } from '../config.js';

export type AutoLeaveReason = 'alone' | 'max_duration' | 'lobby_timeout' | 'join_timeout';

export class AutoLeave {
  private admission: NodeJS.Timeout | null = null;
  private maxDuration: NodeJS.Timeout | null = null;
  private alone: NodeJS.Timeout | null = null;
  private lobbySeen = false;

  constructor(
    private readonly config: Pick<MeetingSessionConfig, 'aloneTimeoutMs' | 'lobbyTimeoutMs' | 'maxDurationMs'>,
    private readonly fire: (reason: AutoLeaveReason) => void,
  ) {}

  /** From the start: admission must come within the lobby wait; the whole meeting within the max. */
  started(): void {
    this.admission = this.timer(this.config.lobbyTimeoutMs, () =>
      this.fire(this.lobbySeen ? 'lobby_timeout' : 'join_timeout'),
    );
    this.maxDuration = this.timer(this.config.maxDurationMs, () => this.fire('max_duration'));
  }

  inLobby(): void {
    this.lobbySeen = true;
  }

  admitted(participantCount: number): void {
    clearTimeout(this.admission ?? undefined);
    this.admission = null;
    this.participants(participantCount);
  }

  /** Alone means nobody but the bot: the countdown runs while the count is 0. */
  participants(count: number): void {
    if (count > 0) {
      clearTimeout(this.alone ?? undefined);
      this.alone = null;
    } else if (!this.alone) {
      this.alone = this.timer(this.config.aloneTimeoutMs, () => this.fire('alone'));
    }
  }

  clear(): void {
    for (const t of [this.admission, this.maxDuration, this.alone]) clearTimeout(t ?? undefined);
    this.admission = this.maxDuration = this.alone = null;
  }

  private timer(ms: number, run: () => void): NodeJS.Timeout {
    const t = setTimeout(run, ms);
    t.unref();
    return t;
  }
}
