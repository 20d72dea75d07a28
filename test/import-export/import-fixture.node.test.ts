/**
 * A real GitLab export (../shared/fixtures/gitlab-export-complex.tar.gz) imported through the API;
 * the expected values are read from the unpacked tree beside it. Node only: workerd has no file system
 * to read the fixture from.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';
import { uploadImport, waitForImport } from './import-support';

const FIXTURES = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const ndjson = (rel: string): any[] =>
  readFileSync(`${FIXTURES}gitlab-export-complex/tree/project/${rel}.ndjson`, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

async function all(path: string, token: string): Promise<any[]> {
  const res = await api(`${path}${path.includes('?') ? '&' : '?'}per_page=100`, { token });
  expect(res.status).toBe(200);
  return res.body;
}

describe('import of a GitLab export (fixture)', () => {
  it('imports issues, labels, milestones, merge requests and notes as the archive holds them', async () => {
    const user = await createUser();
    const res = await uploadImport(user.token, readFileSync(`${FIXTURES}gitlab-export-complex.tar.gz`), { path: unique('fixture') });
    expect(res.status).toBe(201);
    const done = await waitForImport(user.token, res.body.id);
    expect(done.body).toMatchObject({ import_status: 'finished', import_error: null });
    const id = res.body.id;
    const tree = JSON.parse(readFileSync(`${FIXTURES}gitlab-export-complex/tree/project.json`, 'utf8'));
    expect((await api(`/projects/${id}`, { token: user.token })).body).toMatchObject({ description: tree.description, visibility: 'internal' });

    const xIssues = ndjson('issues');
    const xMrs = ndjson('merge_requests');
    // The fixture has what the checks below need, so none of them is vacuous.
    expect(xIssues.length).toBeGreaterThan(5);
    expect(xIssues.some((i) => i.notes?.length && i.label_links?.length && i.milestone)).toBe(true);
    expect(xMrs.some((m) => m.notes?.length)).toBe(true);
    const issues = await all(`/projects/${id}/issues`, user.token);
    expect(issues.map((i) => [i.iid, i.title, i.state, i.confidential]).sort((a, b) => a[0] - b[0])).toEqual(
      xIssues.map((i) => [i.iid, i.title, i.state === 'closed' ? 'closed' : 'opened', !!i.confidential]).sort((a, b) => a[0] - b[0]),
    );
    for (const x of xIssues) {
      const got = issues.find((i) => i.iid === x.iid);
      expect(got.description).toBe(x.description);
      expect(got.created_at).toBe(new Date(x.created_at).toISOString());
      expect(got.milestone?.title ?? null).toBe(x.milestone?.title ?? null);
      expect([...got.labels].sort()).toEqual([...new Set((x.label_links ?? []).map((l: any) => l.label?.title).filter(Boolean))].sort());
      const notes = await all(`/projects/${id}/issues/${x.iid}/notes`, user.token);
      // No archive user is a user here: every note names its original author.
      expect(notes.map((n) => n.body).sort()).toEqual(
        (x.notes ?? []).map((n: any) => `${n.note || '*Blank note*'}\n\n *By ${n.author?.name ?? ''} on ${n.updated_at.split('.')[0]} (imported from GitLab)*`).sort(),
      );
    }

    const labels = await all(`/projects/${id}/labels`, user.token);
    const xLabelTitles = new Set([...ndjson('labels').map((l) => l.title), ...[...xIssues, ...xMrs].flatMap((i) => (i.label_links ?? []).map((l: any) => l.label?.title).filter(Boolean))]);
    expect(labels.map((l) => l.name).sort()).toEqual([...xLabelTitles].sort());
    const milestones = await all(`/projects/${id}/milestones`, user.token);
    const xMilestones = new Set([...ndjson('milestones').map((m) => m.title), ...[...xIssues, ...xMrs].map((i) => i.milestone?.title).filter(Boolean)]);
    expect(milestones.map((m) => m.title).sort()).toEqual([...xMilestones].sort());

    const mrs = await all(`/projects/${id}/merge_requests?state=all`, user.token);
    const failedMrLines = done.body.failed_relations.filter((f: any) => f.relation_name === 'merge_requests').map((f: any) => f.line_number);
    const expectedMrs = xMrs.filter((_, line) => !failedMrLines.includes(line));
    expect(mrs.map((m) => [m.iid, m.title, m.source_branch, m.target_branch, m.state]).sort((a, b) => a[0] - b[0])).toEqual(
      expectedMrs.map((m) => [m.iid, m.title, m.source_branch, m.target_branch, m.state]).sort((a, b) => a[0] - b[0]),
    );
    for (const x of expectedMrs.slice(0, 3)) {
      const notes = await all(`/projects/${id}/merge_requests/${x.iid}/notes`, user.token);
      expect(notes.length).toBe((x.notes ?? []).length);
    }
    // Only lines this server cannot hold fail (a second open merge request for one branch pair), never the import.
    for (const f of done.body.failed_relations) expect(f).toMatchObject({ relation_name: 'merge_requests', exception_class: 'ActiveRecord::RecordInvalid' });
  });
});
