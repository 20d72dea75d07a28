"""A python-gitlab user's environments and deployments workflow against this server, case by case (issue 16).

Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
`FAIL <case> :: <reason>` per case and `END` when done. Written against python-gitlab 3.12 (Debian bookworm's
python3-gitlab): only its public client API is used (gitlab/v4/objects/deployments.py, environments.py).

The story: a release script (the developer, through root's sudo) keeps environments, records deployments of main
and moves them through running to success; a merged merge request is then shipped and listed as the deployment's;
production is protected and asks one approval, so a deployment there waits `blocked` until a maintainer approves it
(the deployer may not approve her own), and a rejection fails the next one.
"""
import re
import secrets
import sys

import gitlab
from pyharness import ROOT, TAG, case, check, client, eq, need, raises, state

SHA = re.compile(r"^[0-9a-f]{40}$")


def new_user(prefix):
    username = f"py-{prefix}-{TAG}"
    return gl.users.create(
        {
            "email": f"{username}@example.com",
            "username": username,
            "name": f"Py {prefix.title()} {TAG}",
            "password": f"Pw-{secrets.token_hex(8)}-x9",
            "skip_confirmation": True,
        }
    )


gl = client(ROOT)


@case("deploy setup: users, project, developer and maintainer members, a README on main")
def _():
    deployer = new_user("deployer")
    approver = new_user("releaser")
    project = gl.projects.create({"name": f"Py Deploy {TAG}", "visibility": "private"})
    project.members.create({"user_id": deployer.id, "access_level": gitlab.const.DEVELOPER_ACCESS})
    project.members.create({"user_id": approver.id, "access_level": gitlab.const.MAINTAINER_ACCESS})
    c = project.commits.create({"branch": "main", "commit_message": "Add README", "actions": [{"action": "create", "file_path": "README.md", "content": "# Deploy\n"}]})
    check(SHA.match(c.id), f"commit id {c.id!r}")
    state.update(deployer=deployer, approver=approver, project=project, readme=c)


@case("project.environments.create (external_url; tier guessed from the name); list with name/search/states; get")
def _():
    (project,) = need("project")
    staging = project.environments.create({"name": "staging", "external_url": "https://staging.example.com"})
    eq((staging.name, staging.slug, staging.external_url, staging.state, staging.tier), ("staging", "staging", "https://staging.example.com", "available", "staging"), "staging")
    review = project.environments.create({"name": "review/fix-1"})
    eq((review.tier, review.external_url), ("development", None), "review environment")
    eq([e.name for e in project.environments.list(get_all=True)], ["staging", "review/fix-1"], "list")
    eq([e.id for e in project.environments.list(name="review/fix-1", get_all=True)], [review.id], "list(name=)")
    eq([e.name for e in project.environments.list(search="REV", get_all=True)], ["review/fix-1"], "list(search=) is a case-insensitive prefix")
    raises(gitlab.exceptions.GitlabListError, 400, lambda: project.environments.list(search="re", get_all=True), "Search query is less than 3 characters")
    got = project.environments.get(staging.id)
    eq((got.name, got.last_deployment), ("staging", None), "get before any deployment")
    raises(gitlab.exceptions.GitlabCreateError, 400, lambda: project.environments.create({"name": "staging"}), "has already been taken")
    state.update(staging=staging, review=review)


@case("environment.save() changes external_url and name; stop() stops it; delete() removes the stopped one")
def _():
    project, review = need("project", "review")
    env = project.environments.get(review.id)
    env.external_url = "https://fix-1.review.example.com"
    env.name = "review/fix-one"
    env.save()
    got = project.environments.get(review.id)
    eq((got.name, got.external_url, got.slug), ("review/fix-one", "https://fix-1.review.example.com", review.slug), "after save (the slug stays)")
    # A started environment is not deleted (destroy_environment needs it stopped).
    raises(gitlab.exceptions.GitlabDeleteError, 403, lambda: got.delete())
    stopped = got.stop()
    eq(stopped["state"], "stopped", "stop() answer")
    eq([e.name for e in project.environments.list(states="stopped", get_all=True)], ["review/fix-one"], "list(states=stopped)")
    eq([e.name for e in project.environments.list(states="available", get_all=True)], ["staging"], "list(states=available)")
    project.environments.delete(review.id)
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: project.environments.get(review.id))


@case("project.deployments.create by the developer (status running); get; list with environment/status/order filters")
def _():
    project, deployer, readme = need("project", "deployer", "readme")
    d = project.deployments.create({"environment": "staging", "sha": readme.id, "ref": "main", "tag": False, "status": "running"}, sudo=deployer.username)
    eq((d.iid, d.ref, d.sha, d.status, d.deployable, d.user["username"], d.environment["name"]), (1, "main", readme.id, "running", None, deployer.username, "staging"), "created")
    # A new environment name is created on the way (tier guessed).
    other = project.deployments.create({"environment": "production-eu", "sha": readme.id, "ref": "main", "tag": False, "status": "failed"}, sudo=deployer.username)
    eq((other.iid, other.status, other.environment["name"]), (2, "failed", "production-eu"), "second deployment")
    eq(project.environments.list(name="production-eu", get_all=True)[0].tier, "production", "environment made by the deployment")
    got = project.deployments.get(d.id)
    eq((got.id, got.status, got.environment["id"]), (d.id, "running", d.environment["id"]), "get")
    eq([x.id for x in project.deployments.list(get_all=True)], [d.id, other.id], "list (id ascending)")
    eq([x.id for x in project.deployments.list(order_by="id", sort="desc", get_all=True)], [other.id, d.id], "list desc")
    eq([x.id for x in project.deployments.list(environment="staging", get_all=True)], [d.id], "list(environment=)")
    eq([x.id for x in project.deployments.list(status="failed", get_all=True)], [other.id], "list(status=)")
    eq([x.id for x in project.deployments.list(updated_after="2000-01-01T00:00:00Z", updated_before="2999-01-01T00:00:00Z", get_all=True)], [d.id, other.id], "list(updated_*)")
    raises(gitlab.exceptions.GitlabListError, 400, lambda: project.deployments.list(status="nope", get_all=True), "status does not have a valid value")
    raises(gitlab.exceptions.GitlabCreateError, 400, lambda: project.deployments.create({"environment": "staging", "sha": "0" * 40, "ref": "main", "tag": False, "status": "running"}), "The commit does not exist")
    state.update(first=d)


@case("deployment.status = 'success'; deployment.save(): finished; the same status again is a validation error")
def _():
    project, first, deployer = need("project", "first", "deployer")
    d = project.deployments.get(first.id)
    d.status = "success"
    d.save(sudo=deployer.username)
    eq(d.status, "success", "saved object")
    got = project.deployments.get(first.id)
    eq(got.status, "success", "read back")
    again = project.deployments.get(first.id)
    again.status = "success"
    raises(gitlab.exceptions.GitlabUpdateError, 400, lambda: again.save(), 'cannot transition via "succeed"')
    env = project.environments.get(first.environment["id"])
    eq(env.last_deployment["id"], first.id, "environment's last deployment")
    # finished_at filters pair with finished_at sorting and the success status (DeploymentsFinder).
    eq([x.id for x in project.deployments.list(status="success", order_by="finished_at", finished_after="2000-01-01T00:00:00Z", get_all=True)], [first.id], "finished_after")
    raises(gitlab.exceptions.GitlabListError, 400, lambda: project.deployments.list(finished_after="2000-01-01T00:00:00Z", get_all=True), "`finished_at` filter and `finished_at` sorting must be paired")


@case("a merged merge request ships with the next successful deployment: deployment.mergerequests.list(); MR list filters")
def _():
    project, deployer, first = need("project", "deployer", "first")
    project.branches.create({"branch": "fix", "ref": "main"}, sudo=deployer.username)
    project.commits.create({"branch": "fix", "commit_message": "Fix", "actions": [{"action": "create", "file_path": "fix.txt", "content": "fixed\n"}]}, sudo=deployer.username)
    mr = project.mergerequests.create({"source_branch": "fix", "target_branch": "main", "title": "The fix"}, sudo=deployer.username)
    merged = mr.merge()
    eq(merged["state"], "merged", "merged")
    eq(project.deployments.get(first.id).mergerequests.list(get_all=True), [], "the earlier deployment shipped nothing")
    main = project.branches.get("main").commit["id"]
    d = project.deployments.create({"environment": "staging", "sha": main, "ref": "main", "tag": False, "status": "running"}, sudo=deployer.username)
    d.status = "success"
    d.save()
    shipped = d.mergerequests.list(get_all=True)
    eq([(m.iid, m.state, m.title) for m in shipped], [(mr.iid, "merged", "The fix")], "deployment.mergerequests.list()")
    eq([m.iid for m in d.mergerequests.list(state="opened", get_all=True)], [], "with a merge request list filter")
    # The merge request list's deployment filters (MergeRequestsFinder#by_deployments).
    eq([m.iid for m in project.mergerequests.list(environment="staging", get_all=True)], [mr.iid], "mergerequests.list(environment=)")
    eq([m.iid for m in project.mergerequests.list(environment="production-eu", get_all=True)], [], "another environment")
    eq([m.iid for m in project.mergerequests.list(environment="staging", deployed_after="2000-01-01T00:00:00Z", get_all=True)], [mr.iid], "deployed_after")
    eq([m.iid for m in project.mergerequests.list(deployed_before="2000-01-01T00:00:00Z", get_all=True)], [], "deployed_before")
    eq([m.iid for m in gl.mergerequests.list(environment="staging", scope="all", get_all=True)], [mr.iid], "gl.mergerequests.list(environment=)")


@case("project.protected_environments.create production (deploy: developers; one approval of a maintainer); list; get")
def _():
    (project,) = need("project")
    # GitLab refuses the deprecated count (epic 9662): approvals are asked for through approval rules.
    raises(
        gitlab.exceptions.GitlabCreateError,
        422,
        lambda: project.protected_environments.create({"name": "production", "deploy_access_levels": [{"access_level": 30}], "required_approval_count": 1}),
        "Parameter 'required_approval_count' is deprecated",
    )
    pe = project.protected_environments.create({"name": "production", "deploy_access_levels": [{"access_level": 30}], "approval_rules": [{"access_level": 40, "required_approvals": 1}]})
    eq((pe.name, [a["access_level"] for a in pe.deploy_access_levels]), ("production", [30]), "protected")
    eq([(r["access_level"], r["required_approvals"], r["access_level_description"]) for r in pe.approval_rules], [(40, 1, "Maintainers")], "approval rules")
    eq([p.name for p in project.protected_environments.list(get_all=True)], ["production"], "list")
    eq(len(project.protected_environments.get("production").approval_rules), 1, "get")


@case("a deployment to production waits blocked; the deployer's own approval is refused; a maintainer's unblocks it")
def _():
    project, deployer, approver, readme = need("project", "deployer", "approver", "readme")
    d = project.deployments.create({"environment": "production", "sha": readme.id, "ref": "main", "tag": False, "status": "running"}, sudo=deployer.username)
    eq((d.status, d.pending_approval_count, d.approvals), ("blocked", 1, []), "blocked deployment")
    raises(
        gitlab.exceptions.GitlabDeploymentApprovalError,
        400,
        lambda: d.approval(status="approved", sudo=deployer.username),
        "You cannot approve your own deployment. This configuration can be adjusted in the protected environment settings.",
    )
    raises(gitlab.exceptions.GitlabDeploymentApprovalError, 400, lambda: d.approval(status="maybe", sudo=approver.username), "status does not have a valid value")
    answer = d.approval(status="approved", comment="Ship it", sudo=approver.username)
    eq((answer["status"], answer["comment"], answer["user"]["username"]), ("approved", "Ship it", approver.username), "approval()")
    got = project.deployments.get(d.id)
    eq((got.status, got.pending_approval_count, [(a["user"]["username"], a["status"]) for a in got.approvals]), ("created", 0, [(approver.username, "approved")]), "unblocked")
    eq([len(r["deployment_approvals"]) for r in got.approval_summary["rules"]], [1], "approval_summary")
    raises(gitlab.exceptions.GitlabDeploymentApprovalError, 400, lambda: got.approval(status="approved", sudo=approver.username), "This deployment is not waiting for approvals.")
    got.status = "running"
    got.save(sudo=deployer.username)
    eq(project.deployments.get(d.id).status, "running", "runs once approved")


@case("a rejection fails the blocked deployment; list(status='blocked') is empty again")
def _():
    project, deployer, approver, readme = need("project", "deployer", "approver", "readme")
    d = project.deployments.create({"environment": "production", "sha": readme.id, "ref": "main", "tag": False, "status": "success"}, sudo=deployer.username)
    eq(d.status, "blocked", "blocked")
    eq([x.id for x in project.deployments.list(status="blocked", get_all=True)], [d.id], "list(status=blocked)")
    answer = d.approval(status="rejected", comment="Not today", sudo=approver.username)
    eq((answer["status"], answer["comment"]), ("rejected", "Not today"), "rejection")
    eq(project.deployments.get(d.id).status, "failed", "failed by the rejection")
    eq(project.deployments.list(status="blocked", get_all=True), [], "nothing blocked")


@case("a release group shared with the project: protected_environments.create canary naming it; its member deploys, the developer may not")
def _():
    project, deployer, readme = need("project", "deployer", "readme")
    releaser = new_user("grprel")
    group = gl.groups.create({"name": f"Py Release {TAG}", "path": f"py-release-{TAG}", "visibility": "private"})
    group.members.create({"user_id": releaser.id, "access_level": gitlab.const.DEVELOPER_ACCESS})
    project.share(group.id, gitlab.const.DEVELOPER_ACCESS)
    other = gl.groups.create({"name": f"Py Unshared {TAG}", "path": f"py-unshared-{TAG}", "visibility": "private"})
    # A group the project is not shared with is dropped (BaseService#valid_attribute?).
    pe = project.protected_environments.create({"name": "canary", "deploy_access_levels": [{"group_id": group.id}, {"group_id": other.id}]})
    eq([(a["group_id"], a["access_level_description"]) for a in pe.deploy_access_levels], [(group.id, group.name)], "group entry")
    body = {"environment": "canary", "sha": readme.id, "ref": "main", "tag": False, "status": "running"}
    eq(project.deployments.create(body, sudo=releaser.username).status, "running", "the group's member deploys")
    raises(gitlab.exceptions.GitlabCreateError, 403, lambda: project.deployments.create(body, sudo=deployer.username), "403 Forbidden")


print("END", flush=True)
sys.exit(0)
