/**
 * The tasks bench's peer: the `cron` package alone, N CronJobs firing every minute in the same
 * zones, each tick doing nothing but note when it fired. The floor for "a process that keeps N
 * schedules", with none of the scheduler's records, runs or guarantees, to set its memory against.
 * Plain JavaScript, so it runs on node alone as the compiled scheduler does (tsx would add its
 * own memory). Run as a child by tasks.bench.ts: `node test/bench/cron-peer.mjs <tasks> <zones>`; prints
 * `ready`, then one JSON line per minute boundary with the lateness of every tick.
 */
import { CronJob } from 'cron';

const [count, zonesJson] = process.argv.slice(2);
const zones = JSON.parse(zonesJson);
let fired = [];
let boundary = 0;
const jobs = [];
for (let i = 0; i < Number(count); i++) {
  jobs.push(
    CronJob.from({
      cronTime: '* * * * *',
      timeZone: zones[i % zones.length],
      start: true,
      onTick: () => {
        const now = Date.now();
        const tick = Math.floor(now / 60_000) * 60_000;
        if (tick !== boundary) {
          if (fired.length > 0) console.log(JSON.stringify({ boundary, lateness: fired }));
          boundary = tick;
          fired = [];
        }
        fired.push(now - tick);
      },
    }),
  );
}
// Report a boundary's ticks 5 s after it, when none of them can still be coming.
setInterval(() => {
  if (fired.length > 0 && Date.now() - boundary > 5000) {
    console.log(JSON.stringify({ boundary, lateness: fired }));
    fired = [];
  }
}, 1000);
console.log('ready');
