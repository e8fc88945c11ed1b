/**
 * The actor's auto-leave rules as timers: not getting anywhere (join timeout), not admitted in
 * time once in the lobby (lobby wait), alone with nobody but the bot, and the maximum duration.
 * A timer firing only posts a message to the actor.
 */
import type { MeetingSessionConfig } from '../config.js';

export type AutoLeaveReason = 'alone' | 'max_duration' | 'lobby_timeout' | 'join_timeout';

type Limits = Pick<MeetingSessionConfig, 'aloneTimeoutMs' | 'joinTimeoutMs' | 'lobbyTimeoutMs' | 'maxDurationMs'>;

export class AutoLeave {
  private join: NodeJS.Timeout | null = null;
  private lobby: NodeJS.Timeout | null = null;
  private maxDuration: NodeJS.Timeout | null = null;
  private alone: NodeJS.Timeout | null = null;

  constructor(
    private readonly config: Limits,
    private readonly fire: (reason: AutoLeaveReason) => void,
  ) {}

  /** From the start: the bot must reach the lobby or get in within the join limit; the whole meeting within the max. */
  started(): void {
    this.join = this.timer(this.config.joinTimeoutMs, () => this.fire('join_timeout'));
    this.maxDuration = this.timer(this.config.maxDurationMs, () => this.fire('max_duration'));
  }

  /** The join got somewhere; the lobby wait counts from now, so time spent joining does not shorten it. */
  inLobby(): void {
    this.join = this.cancel(this.join);
    this.lobby ??= this.timer(this.config.lobbyTimeoutMs, () => this.fire('lobby_timeout'));
  }

  admitted(participantCount: number): void {
    this.join = this.cancel(this.join);
    this.lobby = this.cancel(this.lobby);
    this.participants(participantCount);
  }

  /** Alone means nobody but the bot: the countdown runs while the count is 0. */
  participants(count: number): void {
    if (count > 0) {
      this.alone = this.cancel(this.alone);
    } else if (!this.alone) {
      this.alone = this.timer(this.config.aloneTimeoutMs, () => this.fire('alone'));
    }
  }

  clear(): void {
    for (const t of [this.join, this.lobby, this.maxDuration, this.alone]) this.cancel(t);
    this.join = this.lobby = this.maxDuration = this.alone = null;
  }

  private timer(ms: number, run: () => void): NodeJS.Timeout {
    const t = setTimeout(run, ms);
    t.unref();
    return t;
  }

  private cancel(t: NodeJS.Timeout | null): null {
    clearTimeout(t ?? undefined);
    return null;
  }
}
