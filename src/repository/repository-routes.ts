/**
 * Repository endpoints without git transport (lib/api/commits.rb, branches.rb, files.rb,
 * repositories.rb): commits written through the API, read back as commits, branches, files, trees
 * and comparisons. Storage and object ids: repository.ts.
 */
import type { Router } from '../platform/router';
import { mountBranches } from './branches-routes';
import { mountCommits } from './commits-routes';
import { mountArchive } from './archive-routes';
import { mountFiles } from './files-routes';
import { mountProtectedTags } from './protected-tags-routes';
import { mountRefs } from './refs-routes';
import { mountTags } from './tags-routes';

export function mountRepository(r: Router) {
  mountCommits(r);
  mountBranches(r);
  mountFiles(r);
  mountTags(r);
  mountRefs(r);
  mountArchive(r);
  mountProtectedTags(r);
}
