/**
 * The fixture of the browser suites that run against the real stack: Chromium and the stack
 * started side by side, one tab, and the owner account set up through the form when asked.
 */
import type { Browser, Page } from 'puppeteer-core';
import type { StackOptions } from '@notetaker/stack';
import { startTestStack, type TestStack } from '../../../../../test/support/stack.js';
import { launchChromium, openPage, setUpOwner, skipWithoutChromium, type Credentials } from './browser.js';

/** A browser suite's Chromium and real stack, ready from its `before` hook on. */
export interface ChromiumOnStack {
  browser: Browser;
  t: TestStack;
  /** A desktop-size tab (openPage); signed in as the owner when the suite asked for one. */
  page: Page;
}

export interface ChromiumOnStackSetup {
  /**
   * The stack's environment; called in the `before` hook once Chromium is known to be there, so it
   * may start what the stack is to talk to.
   */
  env?: () => Record<string, string> | Promise<Record<string, string>>;
  stack?: StackOptions;
  /** Collects the script errors and CSP violations the pages cause (see openPage). */
  consoleErrors?: string[];
  /** Creates this owner account through the setup form (setUpOwner) before the suite's tests. */
  owner?: Credentials;
}

/**
 * Suite setup, called in a `describe` body: skips the suite where there is no Chromium; otherwise
 * launches Chromium and starts the real stack side by side, opens a tab and, with `owner`, goes
 * through first-run setup. Closes the browser and stops the stack after the suite.
 */
export function chromiumOnStack(setup: ChromiumOnStackSetup = {}): ChromiumOnStack {
  const suite = {} as ChromiumOnStack;
  before(async function () {
    skipWithoutChromium(this);
    const env = (await setup.env?.()) ?? {};
    [suite.browser, suite.t] = await Promise.all([launchChromium(), startTestStack(env, setup.stack)]);
    suite.page = await openPage(suite.browser, setup.consoleErrors);
    if (setup.owner) await setUpOwner(suite.page, suite.t.baseUrl, setup.owner);
  });
  after(async () => {
    await suite.browser?.close();
    await suite.t?.stop();
  });
  return suite;
}
