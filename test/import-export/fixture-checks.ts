/// <reference types="vite/client" />
/**
 * The GitLab fixture export (a copy of ../shared/fixtures/gitlab-export-complex/ in test/fixtures/gitlab-export/,
 * so a clone tests alone) as the tests see it: its files
 * as text (bundled by vite, so workerd has them too), the archive rebuilt from them, and the checks
 * of an import of it, with every expected value read from the tree itself.
 */
import { expect } from 'vitest';
import { api, createUser, unique } from '../support';
import { tarGz } from './tar-builder';
import { uploadImport, waitForImport } from './import-support';

const PREFIX = '../fixtures/gitlab-export/gitlab-export-complex/';
const files = import.meta.glob('../fixtures/gitlab-export/gitlab-export-complex/**/*', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;
/** Archive path (`tree/project.json`) -> text. */
export const TREE: Record<string, string> = Object.fromEntries(Object.entries(files).map(([k, v]) => [k.slice(PREFIX.length), v]));

const ndjson = (rel: string): any[] =>
  (TREE[`tree/project/${rel}.ndjson`] ?? '')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

/** The tree packed as GitLab packs it (`tar -czf . `: `./` names, directories first). */
export function fixtureArchive(): Promise<Uint8Array> {
  const names = Object.keys(TREE).sort();
  return tarGz([{ name: './', type: '5' }, { name: './tree/', type: '5' }, { name: './tree/project/', type: '5' }, ...names.map((n) => ({ name: `./${n}`, body: TREE[n] }))]);
}

async function all(path: string, token: string): Promise<any[]> {
  const res = await api(`${path}${path.includes('?') ? '&' : '?'}per_page=100`, { token });
  expect(res.status).toBe(200);
  return res.body;
}

/** Imports `archive` (the fixture, packed one way or another) and checks what the API then answers. */
export async function checkFixtureImport(archive: Uint8Array): Promise<void> {
  const user = await createUser();
  const res = await uploadImport(user.token, archive, { path: unique('fixture') });
  expect(res.status).toBe(201);
  const done = await waitForImport(user.token, res.body.id);
  expect(done.body).toMatchObject({ import_status: 'finished', import_error: null });
  const id = res.body.id;
  const tree = JSON.parse(TREE['tree/project.json']);
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
  // Resource events of the issues and merge requests that were written, each as the archive holds it:
  // labels and milestones by title (a deleted label none), the importer for every unmatched user.
  const written = [...xIssues.map((x) => ['issues', x] as const), ...expectedMrs.map((x) => ['merge_requests', x] as const)];
  let eventCount = 0;
  for (const [kind, x] of written) {
    const base = `/projects/${id}/${kind}/${x.iid}`;
    const [labelEvents, milestoneEvents, stateEvents] = await Promise.all(['label', 'milestone', 'state'].map((k) => all(`${base}/resource_${k}_events`, user.token)));
    expect([base, labelEvents.map((e) => [e.action, e.label?.name ?? null, e.created_at, e.user.username])]).toEqual([
      base,
      (x.resource_label_events ?? []).map((e: any) => [e.action, e.label?.title ?? null, new Date(e.created_at).toISOString(), user.username]),
    ]);
    expect([base, milestoneEvents.map((e) => [e.action, e.milestone?.title ?? null, e.state, e.created_at, e.user.username])]).toEqual([
      base,
      (x.resource_milestone_events ?? []).map((e: any) => [e.action, e.milestone?.title ?? null, e.state, new Date(e.created_at).toISOString(), user.username]),
    ]);
    expect([base, stateEvents.map((e) => [e.state, e.created_at, e.source_commit, e.user.username])]).toEqual([
      base,
      (x.resource_state_events ?? []).map((e: any) => [e.state, new Date(e.created_at).toISOString(), e.source_commit ?? null, user.username]),
    ]);
    eventCount += labelEvents.length + milestoneEvents.length + stateEvents.length;
  }
  // The fixture holds events of all three kinds, so the checks above are not vacuous.
  expect(eventCount).toBeGreaterThan(0);
  for (const k of ['resource_label_events', 'resource_milestone_events', 'resource_state_events']) expect(written.some(([, x]) => x[k]?.length)).toBe(true);
  // protected_tags: each rule with its create access levels, as the archive holds them.
  const protectedTags = (await api(`/projects/${id}/protected_tags`, { token: user.token })).body;
  expect(protectedTags.map((t: any) => [t.name, t.create_access_levels.map((l: any) => l.access_level)])).toEqual(
    ndjson('protected_tags').map((t) => [t.name, (t.create_access_levels ?? []).map((l: any) => l.access_level)]),
  );
  expect(protectedTags.length).toBeGreaterThan(0);
  // Only lines this server cannot hold fail (a second open merge request for one branch pair), never
  // the import; commit_notes (on commits the archive's repository lacks) are kept as GitLab keeps them.
  for (const f of done.body.failed_relations) expect(f).toMatchObject({ relation_name: 'merge_requests', exception_class: 'ActiveRecord::RecordInvalid' });
}
