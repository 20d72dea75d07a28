/**
 * Deletion statements the approvals service hands to the modules that delete projects, merge
 * requests, users and groups: every approvals row naming them goes, nothing else.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approvalMergeRequestRules,
  approvalMergeRequestRulesGroups,
  approvalMergeRequestRulesUsers,
  approvalProjectRules,
  approvalProjectRulesGroups,
  approvalProjectRulesUsers,
  approvals,
  mergeRequests,
  projectApprovalSettings,
} from '../../src/db/schema';
import { createNodeApp } from '../../src/node-app';
import { approvalDeletionForProjects, approvalGroupDeletionStatements, approvalUserDeletionStatements } from '../../src/approvals/approval-deletion';

let dir: string;
let created: Awaited<ReturnType<typeof createNodeApp>>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wfapi-approval-del-'));
  created = await createNodeApp({ databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000' } });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (stmts: BatchItem<'sqlite'>[]) => created.db.batch(stmts as unknown as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);

async function seed(projectId: number, mrId: number, userId: number, groupId: number) {
  const db = created.db;
  const now = Date.now();
  await db.insert(mergeRequests).values({ id: mrId, projectId, iid: mrId, sourceProjectId: projectId, sourceBranch: 'f', targetBranch: 'main', title: 't', authorId: userId, createdAt: now, updatedAt: now }).run();
  await db.insert(projectApprovalSettings).values({ projectId, updatedAt: now }).run();
  const pr = await db.insert(approvalProjectRules).values({ projectId, name: `r${mrId}`, createdAt: now, updatedAt: now }).returning().get();
  await db.insert(approvalProjectRulesUsers).values({ ruleId: pr.id, userId }).run();
  await db.insert(approvalProjectRulesGroups).values({ ruleId: pr.id, groupId }).run();
  const mr = await db.insert(approvalMergeRequestRules).values({ mergeRequestId: mrId, name: 'm', createdAt: now, updatedAt: now }).returning().get();
  await db.insert(approvalMergeRequestRulesUsers).values({ ruleId: mr.id, userId }).run();
  await db.insert(approvalMergeRequestRulesGroups).values({ ruleId: mr.id, groupId }).run();
  await db.insert(approvals).values({ mergeRequestId: mrId, userId, sha: 'a', createdAt: now, updatedAt: now }).run();
}

const count = async (t: any, col: any, v: number) => (await created.db.select().from(t).where(eq(col, v)).all()).length;

describe('approval deletion statements', () => {
  it('a project takes its settings, rules and its merge requests approvals and rules; another project keeps its own', async () => {
    await seed(9001, 9001, 7001, 8001);
    await seed(9002, 9002, 7002, 8002);
    await run(approvalDeletionForProjects(created.db, [9001]));
    expect(await count(projectApprovalSettings, projectApprovalSettings.projectId, 9001)).toBe(0);
    expect(await count(approvalProjectRules, approvalProjectRules.projectId, 9001)).toBe(0);
    expect(await count(approvalProjectRulesUsers, approvalProjectRulesUsers.userId, 7001)).toBe(0);
    expect(await count(approvalMergeRequestRules, approvalMergeRequestRules.mergeRequestId, 9001)).toBe(0);
    expect(await count(approvalMergeRequestRulesGroups, approvalMergeRequestRulesGroups.groupId, 8001)).toBe(0);
    expect(await count(approvals, approvals.mergeRequestId, 9001)).toBe(0);
    expect(await count(approvalProjectRules, approvalProjectRules.projectId, 9002)).toBe(1);
    expect(await count(approvals, approvals.mergeRequestId, 9002)).toBe(1);
  });

  it('users and groups leave approvals and rule links', async () => {
    await seed(9003, 9003, 7003, 8003);
    await run([...approvalUserDeletionStatements(created.db, [7003]), ...approvalGroupDeletionStatements(created.db, [8003])]);
    expect(await count(approvals, approvals.userId, 7003)).toBe(0);
    expect(await count(approvalProjectRulesUsers, approvalProjectRulesUsers.userId, 7003)).toBe(0);
    expect(await count(approvalMergeRequestRulesUsers, approvalMergeRequestRulesUsers.userId, 7003)).toBe(0);
    expect(await count(approvalProjectRulesGroups, approvalProjectRulesGroups.groupId, 8003)).toBe(0);
    expect(await count(approvalMergeRequestRulesGroups, approvalMergeRequestRulesGroups.groupId, 8003)).toBe(0);
    expect(await count(approvalProjectRules, approvalProjectRules.projectId, 9003)).toBe(1);
  });
});
