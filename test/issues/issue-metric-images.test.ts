/** Incident metric images (GitLab ee/lib/ee/api/issues.rb; reference 1 §5.4). */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, fetchApi, unique, type TestUser } from '../support';

let owner: TestUser;
let planner: TestUser;
let guest: TestUser;
let outsider: TestUser;
let project: { id: number };
let publicProject: { id: number };

// A 1x1 transparent PNG.
const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII='), (ch) => ch.charCodeAt(0));

function upload(fields: Record<string, string> = {}, file: { bytes?: Uint8Array<ArrayBuffer>; name?: string } = {}) {
  const form = new FormData();
  form.append('file', new File([file.bytes ?? PNG], file.name ?? 'graph.png', { type: 'image/png' }));
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return form;
}

async function mkIssue(projectId: number, token = owner.token, extra: Record<string, unknown> = {}) {
  const res = await api(`/projects/${projectId}/issues`, { token, body: { title: unique('t'), issue_type: 'incident', ...extra } });
  expect(res.status).toBe(201);
  return res.body as { id: number; iid: number; issue_type: string };
}

const imagesOf = (projectId: number, iid: number) => `/projects/${projectId}/issues/${iid}/metric_images`;

beforeAll(async () => {
  [owner, planner, guest, outsider] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
  const res = await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'private' } });
  expect(res.status).toBe(201);
  project = res.body;
  const pub = await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'public' } });
  publicProject = pub.body;
  for (const p of [project, publicProject])
    for (const [u, level] of [[planner, 15], [guest, 10]] as const) {
      const m = await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } });
      expect(m.status).toBe(201);
    }
});

describe('POST /projects/:id/issues/:issue_iid/metric_images', () => {
  it('uploads an image (201) that is listed and downloadable at its file_path', async () => {
    const issue = await mkIssue(project.id);
    expect(issue.issue_type).toBe('incident');
    const res = await api(imagesOf(project.id, issue.iid), { token: planner.token, multipart: upload({ url: 'https://example.com/dash', url_text: 'Dashboard' }) });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'created_at', 'filename', 'file_path', 'url', 'url_text']);
    expect(res.body).toMatchObject({ filename: 'graph.png', url: 'https://example.com/dash', url_text: 'Dashboard' });
    expect(res.body.file_path).toMatch(new RegExp(`/uploads/-/system/issuable_metric_image/file/${res.body.id}/graph.png$`));

    const list = await api(imagesOf(project.id, issue.iid), { token: guest.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([res.body]);

    const file = await fetchApi(res.body.file_path, { headers: { 'PRIVATE-TOKEN': guest.token } });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(PNG);
    const anonFile = await fetchApi(res.body.file_path);
    expect(anonFile.status).toBe(404);
    const outsiderFile = await fetchApi(res.body.file_path, { headers: { 'PRIVATE-TOKEN': outsider.token } });
    expect(outsiderFile.status).toBe(404);
    const wrongMethod = await fetchApi(res.body.file_path, { method: 'POST', headers: { 'PRIVATE-TOKEN': guest.token } });
    expect(wrongMethod.status).toBe(405);
    const docs = await api('/-/openapi.json');
    expect(docs.body.paths).toHaveProperty(['/uploads/-/system/issuable_metric_image/file/{image_id}/{filename}']);
  });

  it('lists images oldest first without url_text when none was given', async () => {
    const issue = await mkIssue(project.id);
    const a = await api(imagesOf(project.id, issue.iid), { token: owner.token, multipart: upload({}, { name: 'a.jpg' }) });
    const b = await api(imagesOf(project.id, issue.iid), { token: owner.token, multipart: upload({ url: 'http://example.org/x' }, { name: 'b.webp' }) });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body).toMatchObject({ filename: 'a.jpg', url: null, url_text: null });
    const list = await api(imagesOf(project.id, issue.iid), { token: owner.token });
    expect(list.body.map((m: { id: number }) => m.id)).toEqual([a.body.id, b.body.id]);
  });

  it('refuses files over 1 MB with 400 before anything else', async () => {
    const issue = await mkIssue(project.id);
    const big = new Uint8Array(1024 * 1024 + 1);
    const res = await api(imagesOf(project.id, issue.iid), { token: owner.token, multipart: upload({}, { bytes: big }) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: '400 Bad request - File is too large' });
    expect((await api(imagesOf(project.id, issue.iid), { token: owner.token })).body).toEqual([]);
  });

  it('refuses unsafe extensions and blocked or long URLs with 403 validation messages', async () => {
    const issue = await mkIssue(project.id);
    const svg = await api(imagesOf(project.id, issue.iid), { token: owner.token, multipart: upload({}, { name: 'x.svg' }) });
    expect(svg.status).toBe(403);
    expect(svg.body).toEqual({ message: 'Validation failed: File does not have a supported extension. Only png, jpg, jpeg, gif, bmp, tiff, ico, and webp are supported' });
    const ftp = await api(imagesOf(project.id, issue.iid), { token: owner.token, multipart: upload({ url: 'ftp://example.com/a' }) });
    expect(ftp.status).toBe(403);
    expect(ftp.body).toEqual({ message: 'Validation failed: Url is blocked: Only allowed schemes are http, https' });
    const local = await api(imagesOf(project.id, issue.iid), { token: owner.token, multipart: upload({ url: 'http://127.0.0.1/a' }) });
    expect(local.status).toBe(403);
    expect(local.body).toEqual({ message: 'Validation failed: Url is blocked: Requests to localhost are not allowed' });
    const text = await api(imagesOf(project.id, issue.iid), { token: owner.token, multipart: upload({ url_text: 'x'.repeat(129) }) });
    expect(text.status).toBe(403);
    expect(text.body).toEqual({ message: 'Validation failed: Url text is too long (maximum is 128 characters)' });
    const missing = await api(imagesOf(project.id, issue.iid), { token: owner.token, body: { url: 'https://example.com' } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'file is missing' });
    expect((await api(imagesOf(project.id, issue.iid), { token: owner.token })).body).toEqual([]);
  });

  it('allows incidents only, and members who may update the issue', async () => {
    const plain = await mkIssue(project.id, owner.token, { issue_type: 'issue' });
    const notIncident = await api(imagesOf(project.id, plain.iid), { token: owner.token, multipart: upload() });
    expect(notIncident.status).toBe(403);
    expect(notIncident.body).toEqual({ message: 'Not allowed!' });
    const notIncidentList = await api(imagesOf(project.id, plain.iid), { token: owner.token });
    expect(notIncidentList.status).toBe(404);
    expect(notIncidentList.body).toEqual({ message: 'Issue not found' });

    const incident = await mkIssue(project.id);
    const byGuest = await api(imagesOf(project.id, incident.iid), { token: guest.token, multipart: upload() });
    expect(byGuest.status).toBe(403);
    expect(byGuest.body).toEqual({ message: 'Not allowed!' });
    const own = await mkIssue(project.id, guest.token);
    const byAuthor = await api(imagesOf(project.id, own.iid), { token: guest.token, multipart: upload() });
    expect(byAuthor.status).toBe(201);
    const byOutsider = await api(imagesOf(project.id, incident.iid), { token: outsider.token, multipart: upload() });
    expect(byOutsider.status).toBe(404);
    const anon = await api(imagesOf(project.id, incident.iid), { multipart: upload() });
    expect(anon.status).toBe(401);

    // A public project: readable by anyone, but non-members may not upload.
    const pub = await mkIssue(publicProject.id);
    const nonMember = await api(imagesOf(publicProject.id, pub.iid), { token: outsider.token, multipart: upload() });
    expect(nonMember.status).toBe(403);
    expect(nonMember.body).toEqual({ message: 'Not allowed!' });
    const anonList = await api(imagesOf(publicProject.id, pub.iid));
    expect(anonList.status).toBe(200);
    expect(anonList.body).toEqual([]);
  });
});

describe('PUT and DELETE /projects/:id/issues/:issue_iid/metric_images/:metric_image_id', () => {
  it('updates url and url_text (200), refusing invalid values with 400', async () => {
    const issue = await mkIssue(project.id);
    const img = (await api(imagesOf(project.id, issue.iid), { token: owner.token, multipart: upload() })).body;
    const res = await api(`${imagesOf(project.id, issue.iid)}/${img.id}`, { token: planner.token, method: 'PUT', body: { url: 'https://example.com/new', url_text: 'New' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...img, url: 'https://example.com/new', url_text: 'New' });
    const bad = await api(`${imagesOf(project.id, issue.iid)}/${img.id}`, { token: planner.token, method: 'PUT', body: { url_text: 'x'.repeat(200) } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: 'Metric image could not be updated' });
    const missing = await api(`${imagesOf(project.id, issue.iid)}/999999`, { token: planner.token, method: 'PUT', body: { url: 'https://example.com' } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'Metric image not found' });
    const byGuest = await api(`${imagesOf(project.id, issue.iid)}/${img.id}`, { token: guest.token, method: 'PUT', body: { url_text: 'guest' } });
    expect(byGuest.status).toBe(403);
    expect(byGuest.body).toEqual({ message: '403 Forbidden' });
    const list = await api(imagesOf(project.id, issue.iid), { token: owner.token });
    expect(list.body).toEqual([{ ...img, url: 'https://example.com/new', url_text: 'New' }]);
  });

  it('deletes the image and its file (204)', async () => {
    const issue = await mkIssue(project.id);
    const img = (await api(imagesOf(project.id, issue.iid), { token: owner.token, multipart: upload() })).body;
    const byGuest = await api(`${imagesOf(project.id, issue.iid)}/${img.id}`, { token: guest.token, method: 'DELETE' });
    expect(byGuest.status).toBe(403);
    const stale = await api(`${imagesOf(project.id, issue.iid)}/${img.id}`, { token: owner.token, method: 'DELETE', headers: { 'If-Unmodified-Since': 'Mon, 01 Jan 2001 00:00:00 GMT' } });
    expect(stale.status).toBe(412);
    expect(stale.body).toEqual({ message: '412 Precondition Failed' });
    expect((await api(imagesOf(project.id, issue.iid), { token: owner.token })).body).toEqual([img]);
    const res = await api(`${imagesOf(project.id, issue.iid)}/${img.id}`, { token: owner.token, method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await api(imagesOf(project.id, issue.iid), { token: owner.token })).body).toEqual([]);
    const file = await fetchApi(img.file_path, { headers: { 'PRIVATE-TOKEN': owner.token } });
    expect(file.status).toBe(404);
    const again = await api(`${imagesOf(project.id, issue.iid)}/${img.id}`, { token: owner.token, method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: 'Metric image not found' });
  });

  it('lets the author (a guest) change images on their own incident', async () => {
    const own = await mkIssue(project.id, guest.token);
    const img = (await api(imagesOf(project.id, own.iid), { token: guest.token, multipart: upload() })).body;
    const put = await api(`${imagesOf(project.id, own.iid)}/${img.id}`, { token: guest.token, method: 'PUT', body: { url_text: 'mine' } });
    expect(put.status).toBe(200);
    expect(put.body.url_text).toBe('mine');
    const del = await api(`${imagesOf(project.id, own.iid)}/${img.id}`, { token: guest.token, method: 'DELETE' });
    expect(del.status).toBe(204);
    expect((await api(imagesOf(project.id, own.iid), { token: guest.token })).body).toEqual([]);
  });
});
