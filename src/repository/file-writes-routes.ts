/** Writing one file (lib/api/files.rb POST, PUT, DELETE): each write is one commit (file-commits.ts). */
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import { DEFAULT_BODY_LIMIT } from '../platform/limits';
import type { Router } from '../platform/router';
import { g, nonBlank, params } from '../platform/validate';
import { settingsOf } from '../settings/settings';
import type { CommitAction } from './commit-writer';
import { FileCommitSchema } from './file-entity';
import { checkFilePath, rubyDecode64, writeFile } from './file-commits';
import { TAGS } from './repository-support';

/** `simple_file_params`. */
const simple = {
  id: g.string(),
  file_path: g.string(),
  branch: nonBlank(),
  commit_message: nonBlank(),
  start_branch: g.string().optional(),
  author_email: g.string().optional(),
  author_name: g.string().optional(),
};
/** `extended_file_params`. */
const extended = params({
  ...simple,
  content: g.string(),
  encoding: g.enum(['base64', 'text']).default('text'),
  last_commit_id: g.string().optional(),
  execute_filemode: g.bool().optional(),
});

/** A file travels whole in the body: the instance's upload bound, `max_attachment_size` (MB), with room for the JSON (as commits). */
const fileBodyLimit = async (c: Context<AppEnv>) => (await settingsOf(c)).max_attachment_size * 1024 * 1024 + DEFAULT_BODY_LIMIT;

/** Files::BaseService: base64 content is decoded as Ruby decodes it (never refused), here re-encoded strictly for the commit writer. */
const contentOf = (p: { content: string; encoding: 'base64' | 'text' }) =>
  p.encoding === 'base64' && p.content !== '' ? { content: Buffer.from(rubyDecode64(p.content)).toString('base64'), encoding: 'base64' as const } : { content: p.content, encoding: 'text' as const };

export function mountFileWrites(r: Router) {
  r.route(
    { method: 'POST', path: '/projects/:id/repository/files/:file_path', summary: 'Create new file in repository', tags: TAGS, params: extended, responses: { 201: FileCommitSchema }, bodyLimit: fileBodyLimit },
    async ({ c, p, caller }) => {
      const path = checkFilePath(p.file_path);
      // Repository#create_file: a create, and a chmod when `execute_filemode` is given.
      const action: CommitAction = { action: 'create', file_path: path, ...contentOf(p), execute_filemode: p.execute_filemode ?? false };
      await writeFile(c, caller, { id: p.id, branch: p.branch, startBranch: p.start_branch, message: p.commit_message, authorName: p.author_name, authorEmail: p.author_email, actions: [action] });
      return c.json({ file_path: p.file_path, branch: p.branch }, 201);
    },
  );

  r.route(
    { method: 'PUT', path: '/projects/:id/repository/files/:file_path', summary: 'Update existing file in repository', tags: TAGS, params: extended, responses: { 200: FileCommitSchema }, bodyLimit: fileBodyLimit },
    async ({ c, p, caller }) => {
      const path = checkFilePath(p.file_path);
      // Repository#update_file: an update, then a chmod when `execute_filemode` is given.
      const actions: CommitAction[] = [{ action: 'update', file_path: path, ...contentOf(p) }];
      if (p.execute_filemode !== undefined) actions.push({ action: 'chmod', file_path: path, execute_filemode: p.execute_filemode });
      await writeFile(c, caller, {
        id: p.id,
        branch: p.branch,
        startBranch: p.start_branch,
        message: p.commit_message,
        authorName: p.author_name,
        authorEmail: p.author_email,
        actions,
        lastCommitId: p.last_commit_id,
      });
      return c.json({ file_path: p.file_path, branch: p.branch }, 200);
    },
  );

  // files.rb declares only `simple_file_params` here: a `last_commit_id` is not among the declared params, so it checks nothing.
  r.route(
    { method: 'DELETE', path: '/projects/:id/repository/files/:file_path', summary: 'Delete an existing file in repository', tags: TAGS, params: params(simple), responses: { 204: null } },
    async ({ c, p, caller }) => {
      const path = checkFilePath(p.file_path);
      await writeFile(c, caller, { id: p.id, branch: p.branch, startBranch: p.start_branch, message: p.commit_message, authorName: p.author_name, authorEmail: p.author_email, actions: [{ action: 'delete', file_path: path }] });
      return c.body(null, 204);
    },
  );
}
