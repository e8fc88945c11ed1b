/**
 * The whole stack (startTestStack) with one API token, for one mocha suite: started by a before()
 * hook registered here, so it runs ahead of the hooks the suite registers after calling this,
 * and stopped by after(). The object returned is the TestStack with the token's `apiKey` beside
 * it, filled in once that hook has run: read it inside hooks and tests.
 */
import type { StackOptions } from '@notetaker/stack';
import { startTestStack, type TestStack } from '../../../../test/support/stack.js';

export interface SuiteStack extends TestStack {
  apiKey: string;
}

export function stackPerSuite(
  setup: {
    /** The stack's environment; a function is called in the hook (after the suite's earlier hooks). */
    env?: Record<string, string> | (() => Record<string, string>);
    options?: StackOptions;
    /** The token's capabilities; createToken's default (knowledge:write) when left out. */
    capabilities?: string[];
  } = {},
): SuiteStack {
  const suite = {} as SuiteStack;
  before(async () => {
    const env = typeof setup.env === 'function' ? setup.env() : setup.env;
    const t = await startTestStack(env, setup.options);
    const { apiKey } = await t.createToken(setup.capabilities);
    Object.assign(suite, t, { apiKey });
  });
  after(() => suite.stop?.());
  return suite;
}
