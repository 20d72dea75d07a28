/**
 * The real GitLab export file (test/fixtures/gitlab-export/gitlab-export-complex.tar.gz, a copy of
 * ../shared/fixtures/gitlab-export-complex.tar.gz so a clone tests alone; GitLab's own tar
 * headers) imported through the API. Node only: workerd has no file system to read the binary from;
 * import-fixture.test.ts imports the same tree repacked, on both runtimes.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { checkFixtureImport } from './fixture-checks';

const FILE = fileURLToPath(new URL('../fixtures/gitlab-export/gitlab-export-complex.tar.gz', import.meta.url));

describe('import of a GitLab export (fixture file)', () => {
  it('imports issues, labels, milestones, merge requests and notes as the archive holds them', async () => {
    await checkFixtureImport(readFileSync(FILE));
  });
});
