// The peer of calendars.bench.ts: the least a poller of the same feeds can do. Fetches every feed
// (full GETs, no ETag), parses it with ical.js and expands its events over the same window, with
// the same concurrency, round after round; answers each round's CPU time on stdout.
// node bare-calendar-loop.mjs <urls-file> <rounds> <concurrency>
import fs from 'node:fs';
import https from 'node:https';
import ICAL from 'ical.js';

const [file, roundsArg, concurrencyArg] = process.argv.slice(2);
const urls = JSON.parse(fs.readFileSync(file, 'utf8'));
const rounds = Number(roundsArg);
const concurrency = Number(concurrencyArg);
const agent = new https.Agent({ keepAlive: true, maxSockets: concurrency });

const get = (url) =>
  new Promise((resolve, reject) => {
    https
      .get(url, { agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });

function expand(text, from, to) {
  const root = new ICAL.Component(ICAL.parse(text));
  let n = 0;
  for (const vevent of root.getAllSubcomponents('vevent')) {
    const event = new ICAL.Event(vevent);
    const iterator = event.iterator();
    for (let next = iterator.next(); next; next = iterator.next()) {
      const at = next.toJSDate().getTime();
      if (at > to) break;
      if (at >= from) n++;
    }
  }
  return n;
}

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

for (let round = 0; round < rounds; round++) {
  const before = cpu();
  let next = 0;
  let events = 0;
  const now = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < urls.length) {
        const url = urls[next++];
        // Read the text first: `events += expand(await ...)` would read `events` before the await.
        const found = expand(await get(url), now - 43_200_000, now + 8 * 86_400_000);
        events += found;
      }
    }),
  );
  const pss = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync('/proc/self/smaps_rollup', 'utf8'))?.[1];
  console.log(JSON.stringify({ round, cpuMs: cpu() - before, events, pssKb: Number(pss) }));
}
agent.destroy();
