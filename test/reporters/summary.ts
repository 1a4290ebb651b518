// Prints one plain closing line, `tests: N passed, N failed, N skipped`, after vitest's own summary, so
// that tools which read a run's last lines (CI) can count the tests without knowing vitest's format.
// A file that failed before its tests ran (an import or syntax error, a failing beforeAll that stopped
// collection) counts as one failure, so that such a run never closes on "0 failed".
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of modules) {
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedHere++;
        else skipped++;
      }
      if (failedHere === 0 && module.errors().length > 0) failedHere = 1;
      failed += failedHere;
    }
    process.stdout.write(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
