/**
 * The import job under at-least-once delivery: the same message delivered again while it runs and
 * after it finished, and a job split across messages by its budget, all end with the same rows as one
 * clean run, none twice. Also the member mapping (who an archive's users become).
 */
import { sendJob, storageSql } from '#harness';
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';
import { exportTree, tarGz } from './tar-builder';
import { uploadImport, waitForImport } from './import-support';

const ISSUES = 130;
/** `git bundle create --all` of two commits made at +02:00 and -03:00 (so both keep their exact objects). */
const BUNDLE = Uint8Array.from(atob('IyB2MiBnaXQgYnVuZGxlCmYxMjcxZjUxNDRhM2JmNzFmNDMzYzZmMWVhMmQwMThlYTljZjJlOGUgcmVmcy9oZWFkcy9tYWluCmYxMjcxZjUxNDRhM2JmNzFmNDMzYzZmMWVhMmQwMThlYTljZjJlOGUgSEVBRAoKUEFDSwAAAAIAAAAGmgt4nI3MUQoCIRCA4XdP4QWKUUfdgVjqKOM4S0HmIkYdvz1Crz8f/xyqdsMSIi4pCDOJMlGhiN4LVS4ZMMUcc12y2Xnoa9okGSowFRSIzKHSlhxikYSYsdTgvIvsnOH3vPdhb/bCV/1y2596lt5W646rB0AAe4IAYI7aHnPqX9jMTzc/cxs0JZoIeJyNykEKgzAQBdB9TjF7Qb6pM01ApD3KGEcqNEYkQo9vj+D28ephRggcWKJPBunZzypL8GoiU8Qcw8TMD1mSOj3rpxz0pkFf9tO8f61NJY/UPdEjCgBq4AH317zWareyK5u5C7lOJouiBHicMzQwMDMxUUjUK6koYaiYIamUaK31O0GVRf/b3vaugzP9Wg0hCpLAChIr2Gco9Yqv1zX58+T83s+hYc0qRQDjvxikMnicS+QCAADOAGwyeJxL4gIAANAAbaECeJwzNDAwMzFRSNQrqShhqJghqZRorfU7QZVF/9ve9q6DM/1aAadLC/Ttfl+cKyVYnExYOsNKhq/1Ki1uLg=='), (c) => c.charCodeAt(0));
const bigTree = () => [
  ...exportTree({
    relations: {
      labels: [{ title: 'l1', color: '#111111' }],
      issues: Array.from({ length: ISSUES }, (_, k) => ({
        iid: k + 1,
        title: `Issue ${k + 1}`,
        label_links: [{ label: { title: 'l1', color: '#111111' } }],
        notes: [{ note: `note a ${k + 1}` }, { note: `note b ${k + 1}` }],
      })),
      // A failed line is recorded once however often its chunk is delivered.
      milestones: ['{broken', JSON.stringify({ iid: 1, title: 'm1' })].join('\n'),
    },
  }),
  { name: './project.bundle', body: BUNDLE },
];

async function counts(projectId: number) {
  const [row] = (await storageSql(
    `SELECT (SELECT count(*) FROM issues WHERE project_id = ${projectId}) AS issues,
            (SELECT count(*) FROM notes WHERE project_id = ${projectId}) AS notes,
            (SELECT count(*) FROM label_links WHERE target_type = 'Issue' AND target_id IN (SELECT id FROM issues WHERE project_id = ${projectId})) AS links,
            (SELECT count(*) FROM labels WHERE project_id = ${projectId}) AS labels,
            (SELECT count(*) FROM repo_commits WHERE project_id = ${projectId}) AS commits,
            (SELECT count(*) FROM repo_commit_files WHERE project_id = ${projectId}) AS files,
            (SELECT count(*) FROM repo_branches WHERE project_id = ${projectId}) AS branches,
            (SELECT count(*) FROM import_failures WHERE project_id = ${projectId}) AS failures`,
  )) as Record<string, number>[];
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
}
const expected = { issues: ISSUES, notes: 2 * ISSUES, links: ISSUES, labels: 1, commits: 2, files: 3, branches: 1, failures: 1 };

describe('import job delivery', () => {
  it('writes every row once when the message is delivered several times at once and again after it finished', async () => {
    const user = await createUser();
    const res = await uploadImport(user.token, await tarGz(bigTree()), { path: unique('dup') });
    expect(res.status).toBe(201);
    const message = { type: 'project_import', id: `project_import:${res.body.id}:${res.body.correlation_id}`, projectId: res.body.id };
    await Promise.all([sendJob(message), sendJob(message)]);
    const done = await waitForImport(user.token, res.body.id, 60_000);
    expect(done.body.import_status).toBe('finished');
    expect(await counts(res.body.id)).toEqual(expected);
    expect(done.body.failed_relations.map((f: any) => [f.relation_name, f.line_number])).toEqual([['milestones', 0]]);
    await sendJob(message);
    await new Promise((r) => setTimeout(r, 500));
    expect(await counts(res.body.id)).toEqual(expected);
  });

  it('resumes where a job split by its budget stopped, with the same result as one run', async () => {
    const user = await createUser();
    const res = await uploadImport(user.token, await tarGz(bigTree()), { path: unique('split') });
    // A zero budget: every message writes one chunk and hands the rest to the next message.
    await sendJob({ type: 'project_import', id: `split:${res.body.id}`, projectId: res.body.id, budgetMs: 0 });
    const done = await waitForImport(user.token, res.body.id, 60_000);
    expect(done.body.import_status).toBe('finished');
    expect(await counts(res.body.id)).toEqual(expected);
    const issue = await api(`/projects/${res.body.id}/issues/${ISSUES}`, { token: user.token });
    expect(issue.body).toMatchObject({ title: `Issue ${ISSUES}`, labels: ['l1'], user_notes_count: 2 });
    const head = await api(`/projects/${res.body.id}/repository/commits/main`, { token: user.token });
    expect([head.body.id, head.body.title]).toEqual(['f1271f5144a3bf71f433c6f1ea2d018ea9cf2e8e', 'two']);
  });
});

describe('import member mapping', () => {
  it('maps archive users by public email for a non-admin importer (by any email for an admin), members at most Maintainer', async () => {
    const importer = await createUser();
    const shown = await createUser();
    const hidden = await createUser();
    expect((await api(`/users/${shown.id}`, { method: 'PUT', token: rootToken, body: { public_email: shown.email } })).status).toBe(200);
    const tree = () =>
      exportTree({
        relations: {
          project_members: [
            { access_level: 50, user: { id: 501, public_email: shown.email, username: 'someone' } },
            { access_level: 30, user: { id: 502, email: hidden.email, username: 'other' } },
          ],
          issues: [
            { iid: 1, title: 'by shown', author_id: 501, issue_assignees: [{ user_id: 501 }, { user_id: 502 }] },
            { iid: 2, title: 'by hidden', author_id: 502 },
          ],
        },
      });
    const res = await uploadImport(importer.token, await tarGz(tree()), { path: unique('members') });
    expect((await waitForImport(importer.token, res.body.id)).body.import_status).toBe('finished');
    const members = await api(`/projects/${res.body.id}/members`, { token: importer.token });
    expect(members.body.map((m: any) => [m.id, m.access_level]).sort()).toEqual([[importer.id, 50], [shown.id, 40]].sort());
    const issues = await api(`/projects/${res.body.id}/issues`, { token: importer.token });
    const byTitle = Object.fromEntries(issues.body.map((i: any) => [i.title, i]));
    expect(byTitle['by shown'].author.id).toBe(shown.id);
    expect(byTitle['by shown'].assignees.map((a: any) => a.id)).toEqual([shown.id]);
    // A private address does not match for a non-admin: the author falls back to the importer.
    expect(byTitle['by hidden'].author.id).toBe(importer.id);

    const admin = await createUser({ admin: true });
    const asAdmin = await uploadImport(admin.token, await tarGz(tree()), { path: unique('members') });
    expect((await waitForImport(admin.token, asAdmin.body.id)).body.import_status).toBe('finished');
    const adminIssues = await api(`/projects/${asAdmin.body.id}/issues`, { token: admin.token });
    expect(adminIssues.body.find((i: any) => i.title === 'by hidden').author.id).toBe(hidden.id);
    const adminMembers = await api(`/projects/${asAdmin.body.id}/members`, { token: admin.token });
    expect(adminMembers.body.map((m: any) => [m.id, m.access_level]).sort()).toEqual([[admin.id, 50], [shown.id, 40], [hidden.id, 30]].sort());
  });
});
