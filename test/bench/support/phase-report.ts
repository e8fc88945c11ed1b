/**
 * How the phased meeting benches (meeting-phases.ts) print a phase, and how they compare the two
 * kinds of phase: means over the phases of each kind, per live meeting.
 */
import os from 'node:os';
import { fmt, mean, median } from '../stats.js';
import { cores, type MeetingsPhase, type PhasePlan } from './meeting-phases.js';

export const MiB = 1024 * 1024;

/** `phase <n> <setting>=<mode>: live meetings, sentences said, the window, and what the rest of the machine did`. */
export function phaseHeadline(p: MeetingsPhase, n: number, setting: string, plan: PhasePlan): string {
  return (
    `phase ${n} ${setting}=${p.mode}: ${p.meetings.length}/${plan.count} live${p.failures.length ? ` (${p.failures.length} failed)` : ''}, ` +
    `${p.said} sentences said${p.sayErrors ? ` (${p.sayErrors} say errors)` : ''}, window ${p.windowS.toFixed(1)} s, ` +
    `load ${p.load[0].toFixed(2)} -> ${p.load[1].toFixed(2)}, other processes ${p.othersCores.toFixed(2)} cores, ${p.steal}`
  );
}

/** The window's CPU (`note` follows the cores) and Chromium's PSS. */
export function windowCpuLine(p: MeetingsPhase, note = ''): string {
  return (
    `   CPU over the window: Chromium ${fmt(p.cpuChromiumS, 1, 5)} s + this process ${fmt(p.cpuNodeS, 1, 5)} s = ${fmt(cores(p), 3, 5)} cores${note}; ` +
    `Chromium PSS median ${fmt(median(p.pssBytes) / MiB, 0, 5)} MiB (${p.pssBytes.length} samples, ${p.processes} processes)`
  );
}

/**
 * The phases of each of the two kinds that had live meetings and a measured window, after the
 * comparison's heading; and a word when the rest of the machine kept a quarter of a core or more
 * busy over the windows on average (`busyConsequence` says what suffered).
 */
export function phasesByKind<P extends MeetingsPhase>(
  done: P[],
  [first, second]: [string, string],
  heading: string,
  busyConsequence = '',
): [P[], P[]] {
  const measured = (mode: string) => done.filter((p) => p.mode === mode && p.meetings.length > 0 && p.windowS > 0);
  console.log(`\n${heading} (means over the phases of each kind):`);
  const others = mean(done.filter((p) => p.windowS > 0).map((p) => p.othersCores));
  if (others > 0.25)
    console.log(
      `   other processes (not ours) kept ${others.toFixed(2)} of ${os.cpus().length} cores busy during the windows on average: ` +
        `the meetings were short of CPU${busyConsequence}`,
    );
  return [measured(first), measured(second)];
}

/**
 * A figure's mean over the phases of each kind, and the first's minus the second's per live meeting
 * (each divided by its own count when the phases are unequal, fixed costs included).
 */
export interface KindDifference {
  first: number;
  second: number;
  perMeeting: number;
}

export interface KindComparison {
  /** Live meetings a phase of the first kind, on average. */
  liveFirst: number;
  /** The window's cores: all, the bots' Chromium, this process. */
  cores: { all: KindDifference; chromium: KindDifference; node: KindDifference };
  /** Chromium's PSS (the median sample of a phase). */
  pss: KindDifference;
}

/** Compares the phases of two kinds; says so when their live meetings differ. */
export function compareKinds<P extends MeetingsPhase>(first: P[], second: P[]): KindComparison {
  const live = (ps: P[]) => mean(ps.map((p) => p.meetings.length));
  const [nFirst, nSecond] = [live(first), live(second)];
  const unequal = nFirst !== nSecond;
  if (unequal)
    console.log(
      `   unequal phases (${nFirst} vs ${nSecond} live meetings on average): each kind is divided by its own count, fixed costs included`,
    );
  const compare = (figure: (p: P) => number): KindDifference => {
    const [a, b] = [mean(first.map(figure)), mean(second.map(figure))];
    return { first: a, second: b, perMeeting: unequal ? a / nFirst - b / nSecond : (a - b) / nFirst };
  };
  return {
    liveFirst: nFirst,
    cores: {
      all: compare(cores),
      chromium: compare((p) => p.cpuChromiumS / p.windowS),
      node: compare((p) => p.cpuNodeS / p.windowS),
    },
    pss: compare((p) => median(p.pssBytes)),
  };
}
