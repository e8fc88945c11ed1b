/**
 * Where the bots' browser is: shared with the gateway's `bot-account login` (@notetaker/kit), and
 * kept apart from browser.ts so the worker can look for it at start and on every heartbeat without
 * loading puppeteer.
 */
export { CHROME_CANDIDATES, findChrome } from '@notetaker/kit';
