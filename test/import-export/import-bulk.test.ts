/**
 * The import's bulk writer (import-bulk.ts): issues, notes and label links of many lines in one
 * statement a table, across several chunks (500 lines each) and several JSON arrays a chunk.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';
import { exportTree, tarGz } from './tar-builder';
import { uploadImport, waitForImport } from './import-support';

const ISSUES = 1100;
const at = (k: number) => new Date(Date.UTC(2021, 0, 1) + k * 60_000).toISOString();

describe('bulk import of issues, notes and label links', () => {
  it('writes every issue with its milestone, labels and notes across chunks, and keeps an issue and a merge request of the same iid apart', async () => {
    const user = await createUser();
    // About 1 KB of description each: a chunk's issues need several JSON arrays (512 K characters each).
    const description = 'x'.repeat(1000);
    const issues = Array.from({ length: ISSUES }, (_, i) => ({
      iid: i + 1,
      title: `Issue ${i + 1}`,
      description: `${i + 1} ${description}`,
      state: i % 2 ? 'closed' : 'opened',
      author_id: 1,
      created_at: at(i),
      updated_at: at(i + 1),
      milestone: { title: `m${i % 3}`, iid: (i % 3) + 1 },
      // A label twice on one issue is linked once.
      label_links: [{ label: { title: `l${i % 4}`, color: '#112233' } }, { label: { title: 'shared', color: '#445566' } }, { label: { title: 'shared', color: '#445566' } }],
      notes: [{ note: `note a ${i + 1}`, author_id: 1, created_at: at(i), updated_at: at(i) }, { note: `note b ${i + 1}`, author_id: 1, created_at: at(i + 1), updated_at: at(i + 1) }],
    }));
    const archive = await tarGz(
      exportTree({
        relations: {
          issues,
          merge_requests: [{ iid: 1, title: 'MR one', source_branch: 'f', target_branch: 'main', state: 'opened', author_id: 1, label_links: [{ label: { title: 'mr-only', color: '#000000' } }], notes: [{ note: 'on the merge request', author_id: 1 }] }],
        },
      }),
    );
    const res = await uploadImport(user.token, archive, { path: unique('bulk') });
    expect(res.status).toBe(201);
    const done = await waitForImport(user.token, res.body.id, 60_000);
    expect([done.body.import_status, done.body.failed_relations]).toEqual(['finished', []]);
    const P = `/projects/${res.body.id}`;

    const list = await api(`${P}/issues?per_page=1&state=all`, { token: user.token });
    expect(list.headers.get('x-total')).toBe(String(ISSUES));
    for (const iid of [1, 500, 501, 1100]) {
      const issue = (await api(`${P}/issues/${iid}`, { token: user.token })).body;
      expect([issue.title, issue.description, issue.state, issue.milestone?.title, [...issue.labels].sort()]).toEqual([
        `Issue ${iid}`,
        `${iid} ${description}`,
        (iid - 1) % 2 ? 'closed' : 'opened',
        `m${(iid - 1) % 3}`,
        [`l${(iid - 1) % 4}`, 'shared'].sort(),
      ]);
      const notes = (await api(`${P}/issues/${iid}/notes?sort=asc`, { token: user.token })).body;
      // The archive's author is not a member here: the note names them (missing_author_note).
      expect(notes.map((n: { body: string }) => n.body.split('\n\n')[0])).toEqual([`note a ${iid}`, `note b ${iid}`]);
    }
    const mr = (await api(`${P}/merge_requests/1`, { token: user.token })).body;
    expect(mr.labels).toEqual(['mr-only']);
    expect((await api(`${P}/merge_requests/1/notes`, { token: user.token })).body.map((n: { body: string }) => n.body)).toEqual([expect.stringMatching(/^on the merge request\n\n \*By /)]);
    const shared = (await api(`${P}/issues?labels=shared&per_page=1&state=all`, { token: user.token })).headers.get('x-total');
    expect(shared).toBe(String(ISSUES));
    // Three milestones, created once each from the issues that name them.
    expect((await api(`${P}/milestones`, { token: user.token })).body.map((m: { title: string }) => m.title).sort()).toEqual(['m0', 'm1', 'm2']);
  });
});
