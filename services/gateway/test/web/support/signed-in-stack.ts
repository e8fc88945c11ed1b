/**
 * The real stack for the web application's HTTP suites, for one mocha suite (stackPerSuite): a
 * scripted meeting platform stands in for Google Meet, and the owner account is set up and signed
 * in through a WebClient by a before() hook registered here, so it runs ahead of the hooks the
 * suite registers after calling this. Read the object returned inside hooks and tests.
 */
import { scriptedDriverFactory, type ScriptedDriverFactory } from '../../../../../test/support/scripted-driver.js';
import { stackPerSuite, type SuiteStack } from '../../support/stack-per-suite.js';
import { OWNER, WebClient } from './web-client.js';

export interface SignedInStack extends SuiteStack {
  platform: ScriptedDriverFactory;
  /** Signed in as OWNER. */
  owner: WebClient;
}

export function signedInStackPerSuite(env?: () => Record<string, string>): SignedInStack {
  const platform = scriptedDriverFactory();
  const suite = Object.assign(stackPerSuite({ env, options: { driverFactory: platform } }), {
    platform,
  }) as SignedInStack;
  before(async () => {
    suite.owner = new WebClient(suite.baseUrl);
    await suite.owner.setup(OWNER.email, OWNER.password);
  });
  return suite;
}
