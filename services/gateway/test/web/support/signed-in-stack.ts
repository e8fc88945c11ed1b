/**
 * The real stack for the web application's HTTP suites: a scripted meeting platform stands in for
 * Google Meet, and the owner account is set up and signed in through a WebClient.
 */
import { scriptedDriverFactory, type ScriptedDriverFactory } from '../../../../../test/support/scripted-driver.js';
import { startTestStack, type TestStack } from '../../../../../test/support/stack.js';
import { OWNER, WebClient } from './web-client.js';

export interface SignedInStack {
  t: TestStack;
  platform: ScriptedDriverFactory;
  /** Signed in as OWNER. */
  owner: WebClient;
}

export async function startSignedInStack(): Promise<SignedInStack> {
  const platform = scriptedDriverFactory();
  const t = await startTestStack({}, { driverFactory: platform });
  const owner = new WebClient(t.baseUrl);
  await owner.setup(OWNER.email, OWNER.password);
  return { t, platform, owner };
}
