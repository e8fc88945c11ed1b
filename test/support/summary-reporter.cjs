// Mocha's spec reporter plus one closing line that CI reads: `tests: N passed, N failed`.
const Mocha = require('mocha');

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const { passes, failures, pending } = runner.stats;
      const skipped = pending ? `, ${pending} skipped` : '';
      process.stdout.write(`tests: ${passes} passed, ${failures} failed${skipped}\n`);
    });
  }
}

module.exports = SummaryReporter;
