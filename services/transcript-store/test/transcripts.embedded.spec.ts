import { embeddedStore } from './support/harness.js';
import { transcriptStoreContract } from './transcripts.contract.js';

describe('transcript-store over the bus (embedded store)', () => {
  transcriptStoreContract(embeddedStore);
});
