/**
 * Registration token resets (lib/api/ci/runners.rb): the instance's (administrators), a project's
 * (maintainers) and a group's (owners). The new token is answered once, as Entities::Ci::ResetTokenResult
 * without `token_expires_at` (registration tokens do not expire: reference gitlab-behaviour-2.md 5.1).
 */
import { z } from 'zod';
import type { Router } from '../platform/router';
import { forbidden } from '../platform/errors';
import { requireUser } from '../platform/guards';
import { g, params } from '../platform/validate';
import { ACCESS } from '../projects/abilities';
import { findReadableGroup } from '../projects/groups';
import { findReadableProject } from '../projects/projects';
import { resetRegistrationToken } from './runner-tokens';

const TAGS = ['runners'];
export const RegistrationTokenSchema = z.object({ token: z.string() });
const idParams = params({ id: g.string() });

export function mountRegistrationTokens(r: Router) {
  r.route(
    { method: 'POST', path: '/runners/reset_registration_token', summary: "Reset the instance's runner registration token", tags: TAGS, admin: true, responses: { 201: RegistrationTokenSchema } },
    async ({ c }) => {
      const { token, statement } = await resetRegistrationToken(c, 'instance', 0);
      await statement.run();
      return c.json({ token }, 201);
    },
  );

  r.route(
    { method: 'POST', path: '/projects/:id/runners/reset_registration_token', summary: "Reset a project's runner registration token", tags: TAGS, params: idParams, responses: { 201: RegistrationTokenSchema } },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const found = await findReadableProject(c, caller, p.id);
      // authorize! :update_runners_registration_token: maintainers of the project.
      if (!caller.isAdmin && found.level < ACCESS.MAINTAINER) throw forbidden();
      const { token, statement } = await resetRegistrationToken(c, 'project', found.project.id);
      await statement.run();
      return c.json({ token }, 201);
    },
  );

  r.route(
    { method: 'POST', path: '/groups/:id/runners/reset_registration_token', summary: "Reset a group's runner registration token", tags: TAGS, params: idParams, responses: { 201: RegistrationTokenSchema } },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const found = await findReadableGroup(c, caller, p.id);
      // authorize! :update_runners_registration_token: owners of the group.
      if (!caller.isAdmin && found.level < ACCESS.OWNER) throw forbidden();
      const { token, statement } = await resetRegistrationToken(c, 'group', found.group.id);
      await statement.run();
      return c.json({ token }, 201);
    },
  );
}
