// Prints one plain closing line, `tests: N passed, N failed, N skipped`, after vitest's own summary, so
// that tools which read a run's last lines (CI) can count the tests without knowing vitest's format.
import type { Reporter } from 'vitest/reporters';

type Task = { type: string; mode?: string; result?: { state?: string }; tasks?: Task[] };

export default class SummaryReporter implements Reporter {
  onFinished(files: Task[] = []): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const visit = (t: Task) => {
      if (t.tasks) t.tasks.forEach(visit);
      if (t.type !== 'test') return;
      const state = t.result?.state;
      if (state === 'pass') passed++;
      else if (state === 'fail') failed++;
      else skipped++;
    };
    files.forEach(visit);
    process.stdout.write(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
