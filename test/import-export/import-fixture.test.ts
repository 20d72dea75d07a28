/** The GitLab fixture export's tree, packed in the test, imported through the API on both runtimes. */
import { describe, it } from 'vitest';
import { checkFixtureImport, fixtureArchive } from './fixture-checks';

describe('import of a GitLab export (fixture tree)', () => {
  it('imports issues, labels, milestones, merge requests and notes as the tree holds them', async () => {
    await checkFixtureImport(await fixtureArchive());
  });
});
