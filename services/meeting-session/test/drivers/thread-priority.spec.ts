/**
 * The bots' Chromium keeps every thread at normal priority, even where the worker could grant more
 * (root outside a container, as on these machines and in CI): a page plays sound, so Chromium starts
 * its audio threads, and none of the pool's browser runs in real time or at a raised nice level,
 * where Chromium launched plainly by the same process does (thread-priority.ts says why it matters).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { findChrome } from '@notetaker/find-chrome';
import { BrowserPool, chromeArgs, type BrowserLease } from '../../src/drivers/browser.js';
import { browserProcesses } from '../../src/drivers/process-tree.js';
import { chromiumCommand, mayRaisePriority, priorityNotice } from '../../src/drivers/thread-priority.js';
import { eventually } from '../../../../test/support/wait.js';

/** SCHED_FIFO (1) and SCHED_RR (2), the kernel's real-time policies. */
const isRealTime = (t: ThreadSeen) => t.policy === 1 || t.policy === 2;

interface ThreadSeen {
  name: string;
  policy: number;
  nice: number;
}

/** Every thread of a browser's processes, with its scheduling policy and nice value (/proc/<pid>/task/<tid>/stat). */
function threadsOf(browserPid: number): ThreadSeen[] {
  const seen: ThreadSeen[] = [];
  for (const pid of browserProcesses(browserPid)) {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        // From field 3 (state) on: nice is field 19, policy field 41.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        seen.push({ name, nice: Number(fields[16]), policy: Number(fields[38]) });
      } catch {
        // The thread ended meanwhile.
      }
    }
  }
  return seen;
}

/** The threads above normal priority, one line each. */
const raised = (threads: ThreadSeen[]) =>
  threads.filter((t) => isRealTime(t) || t.nice < 0).map((t) => `${t.name}: policy ${t.policy}, nice ${t.nice}`);

/** Plays a tone through the page's default output, which starts Chromium's audio threads. */
async function playTone(page: Page): Promise<void> {
  const state = await page.evaluate(async () => {
    const ctx = new AudioContext();
    const tone = ctx.createOscillator();
    tone.connect(ctx.destination);
    tone.start();
    await ctx.resume();
    return ctx.state;
  });
  expect(state).to.equal('running');
}

/**
 * Every thread state seen over `ms` of looks once the browser's audio output thread runs: a thread
 * takes its priority just after it starts, so one look can come too early (seen under load).
 */
async function threadsSeenWhilePlaying(browserPid: number, ms = 2_000): Promise<ThreadSeen[]> {
  const seen = new Map<string, ThreadSeen>();
  const look = () => {
    const threads = threadsOf(browserPid);
    threads.forEach((t) => seen.set(`${t.name} ${t.policy} ${t.nice}`, t));
    return threads;
  };
  await eventually(
    () => look().some((t) => t.name.startsWith('AudioOutputDevi')),
    "Chromium's audio output thread",
    10_000,
  );
  for (const end = Date.now() + ms; Date.now() < end;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    look();
  }
  return [...seen.values()];
}

describe('Chromium thread priority', function () {
  this.timeout(30_000);
  const chromePath = findChrome();

  describe('the command', () => {
    const status = (capEff: string) => `Name:\tnode\nCapInh:\t0000000000000000\nCapEff:\t${capEff}\n`;

    it('reads CAP_SYS_NICE (bit 23) from the effective set', () => {
      expect(mayRaisePriority(status('000001ffffffffff'))).to.equal(true);
      expect(mayRaisePriority(status('0000000000800000'))).to.equal(true);
      expect(mayRaisePriority(status('000001fffe7fffff'))).to.equal(false);
      expect(mayRaisePriority(status('0000000000000000'))).to.equal(false);
      expect(mayRaisePriority('Name:\tnode\n')).to.equal(false);
    });

    it('goes through setpriv without CAP_SYS_NICE only where the worker holds it and setpriv is there', () => {
      expect(chromiumCommand('/usr/bin/chromium', ['--a'], true, '/usr/bin/setpriv')).to.deep.equal({
        executablePath: '/usr/bin/setpriv',
        args: ['--bounding-set=-sys_nice', '--inh-caps=-sys_nice', '--', '/usr/bin/chromium', '--a'],
      });
      const plain = { executablePath: '/usr/bin/chromium', args: ['--a'] };
      expect(chromiumCommand('/usr/bin/chromium', ['--a'], false, '/usr/bin/setpriv')).to.deep.equal(plain);
      expect(chromiumCommand('/usr/bin/chromium', ['--a'], true, null)).to.deep.equal(plain);
    });

    it('tells the operator at start, and warns where Chromium will take real time', () => {
      expect(priorityNotice(false, '/usr/bin/setpriv')).to.equal(null);
      expect(priorityNotice(true, '/usr/bin/setpriv')).to.include({ level: 'info' });
      const warning = priorityNotice(true, null);
      expect(warning?.level).to.equal('warn');
      expect(warning?.message)
        .to.match(/real time/)
        .and.match(/setpriv/);
    });
  });

  describe('in real Chromium', function () {
    let pool: BrowserPool | undefined;
    let lease: BrowserLease | undefined;
    let plain: Browser | undefined;

    before(function () {
      if (!chromePath) throw new Error('no Chromium installed: .ci/run installs it');
    });
    afterEach(async () => {
      await lease?.release();
      await pool?.close();
      await plain?.close();
      lease = pool = plain = undefined;
    });

    it("keeps the pool's browser at normal priority while a page plays sound", async () => {
      pool = new BrowserPool({ headless: true, extraArgs: [], meetingsPerBrowser: 1 });
      lease = await pool.acquire();
      await playTone(await lease.context.newPage());
      expect(raised(await threadsSeenWhilePlaying(lease.browserPid!))).to.deep.equal([]);
    });

    it('where Chromium launched plainly by this process runs its audio in real time (when the process may grant it)', async () => {
      plain = await puppeteer.launch({ executablePath: chromePath!, headless: true, pipe: true, args: chromeArgs([]) });
      await playTone(await plain.newPage());
      const realTime = (await threadsSeenWhilePlaying(plain.process()!.pid!)).filter(isRealTime);
      // As root here: the comparison above means something. Without CAP_SYS_NICE, neither can.
      expect(realTime.length > 0).to.equal(mayRaisePriority());
    });
  });
});
