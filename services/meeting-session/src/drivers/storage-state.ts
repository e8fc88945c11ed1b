/**
 * A bot account's storage state, put into the meeting's own browser context before its first
 * navigation: the cookies on the context, and localStorage through a script that runs ahead of
 * the page's own on every document of the state's origins (Teams reads its token from there).
 * The context belongs to this one meeting, so no other meeting, guest or signed in, ever carries
 * the account's state, and it goes with the context when the meeting ends.
 */
import type { CookieData, Page } from 'puppeteer-core';
import type { StorageState } from '@notetaker/contracts';
import type { BrowserLease } from './browser.js';

/** Runs in the page: writes the items of this origin that the page does not hold yet. */
const SEED_STORAGE = String.raw`(function (stores) {
  try {
    for (var i = 0; i < stores.length; i++) {
      if (stores[i].origin !== location.origin) continue;
      var items = stores[i].localStorage;
      for (var j = 0; j < items.length; j++) {
        if (localStorage.getItem(items[j].name) === null) localStorage.setItem(items[j].name, items[j].value);
      }
    }
  } catch (e) {
    /* opaque origins (about:blank, data:) have no storage */
  }
})`;

export async function seedStorageState(lease: BrowserLease, page: Page, state: StorageState): Promise<void> {
  if (state.cookies.length > 0) await lease.context.setCookie(...state.cookies.map(cookieData));
  const stores = state.origins.filter((origin) => origin.localStorage.length > 0);
  if (stores.length > 0) await page.evaluateOnNewDocument(`${SEED_STORAGE}(${JSON.stringify(stores)})`);
}

function cookieData(cookie: StorageState['cookies'][number]): CookieData {
  return {
    name: cookie.name,
    value: cookie.value,
    domain: cookie.domain,
    path: cookie.path,
    secure: cookie.secure,
    httpOnly: cookie.httpOnly,
    ...(cookie.sameSite && { sameSite: cookie.sameSite }),
    // -1 (or 0) is a session cookie: it lasts as long as the context.
    ...(cookie.expires > 0 && { expires: cookie.expires }),
  };
}
