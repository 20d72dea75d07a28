"""A python-gitlab user's merge request workflow against this server, case by case.

Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment, after
python_gitlab_check.py. Prints `PASS <case>` or `FAIL <case> :: <reason>` per case and `END` when done.
Written against python-gitlab 3.12 (Debian bookworm's python3-gitlab): only its public client API is used.

The story: a project gets a README commit on main, a developer branches off and commits as herself, main is
protected (developers merge, maintainers push), a project approval rule asks one approval of a named user, the
merge request (which says "Closes #n") is approved with the right sha, refused with a wrong one, unapproved and
approved again, loses its approval when the source branch moves, and is merged with the HEAD sha, closing the issue.
Other users act through sudo (root's token has the sudo scope), as an administrator's script would.
"""
import re
import secrets
import sys
import time

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


def usernames(users):
    return sorted(u["username"] for u in users)


def approvers(approvals):
    """approved_by of a MergeRequestApprovals body: [{user: UserRef, approved_at}]."""
    return sorted(a["user"]["username"] for a in approvals["approved_by"])


gl = client(ROOT)


@case("mr setup: users, project, developer and maintainer members")
def _():
    author = new_user("mrauthor")
    approver = new_user("approver")
    project = gl.projects.create({"name": f"Py MR {TAG}", "visibility": "private"})
    project.members.create({"user_id": author.id, "access_level": gitlab.const.DEVELOPER_ACCESS})
    project.members.create({"user_id": approver.id, "access_level": gitlab.const.MAINTAINER_ACCESS})
    state.update(author=author, approver=approver, project=project)


@case("project.protectedbranches.create main before any commit (push: maintainers, merge: developers); list, get")
def _():
    (project,) = need("project")
    pb = project.protectedbranches.create({"name": "main", "push_access_level": 40, "merge_access_level": 30})
    eq(pb.name, "main", "name")
    eq([(a["access_level"], a["access_level_description"]) for a in pb.push_access_levels], [(40, "Maintainers")], "push_access_levels")
    eq([(a["access_level"], a["access_level_description"]) for a in pb.merge_access_levels], [(30, "Developers + Maintainers")], "merge_access_levels")
    eq(pb.code_owner_approval_required, False, "code_owner_approval_required")
    eq([p.name for p in project.protectedbranches.list(get_all=True)], ["main"], "protected branches")
    eq(project.protectedbranches.get("main").push_access_levels[0]["access_level"], 40, "protectedbranches.get")
    raises(gitlab.exceptions.GitlabCreateError, 409, lambda: project.protectedbranches.create({"name": "main"}), "Protected branch 'main' already exists")


@case("protectedbranches.create a wildcard with allowed_to_push users and code_owner_approval_required; delete() unprotects it")
def _():
    project, approver = need("project", "approver")
    pb = project.protectedbranches.create(
        {"name": "release/*", "push_access_level": 0, "allowed_to_push": [{"user_id": approver.id}], "code_owner_approval_required": True}
    )
    eq(pb.name, "release/*", "name")
    eq(sorted((a["access_level_description"], a.get("user_id")) for a in pb.push_access_levels), sorted([("No one", None), (approver.name, approver.id)]), "push entries")
    eq(pb.code_owner_approval_required, True, "code_owner_approval_required")
    eq(project.protectedbranches.get("release/*").name, "release/*", "get by a name with / and *")
    project.protectedbranches.delete("release/*")
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: project.protectedbranches.get("release/*"))
    eq([p.name for p in project.protectedbranches.list(get_all=True)], ["main"], "protected branches after unprotect")


@case("project.approvals.get() defaults; save() sets reset_approvals_on_push; project.approvalrules.create for a named user")
def _():
    project, approver = need("project", "approver")
    conf = project.approvals.get()
    eq(
        (conf.approvals_before_merge, conf.disable_overriding_approvers_per_merge_request, conf.merge_requests_author_approval, conf.merge_requests_disable_committers_approval, conf.require_password_to_approve),
        (0, False, False, False, False),
        "default configuration",
    )
    conf.reset_approvals_on_push = True
    # Developers may read merge request settings but not change them.
    raises(gitlab.exceptions.GitlabUpdateError, 403, lambda: conf.save(sudo=state["author"].username))
    conf.save()
    eq(project.approvals.get().reset_approvals_on_push, True, "reset_approvals_on_push read back")
    rule = project.approvalrules.create({"name": "Reviewers", "approvals_required": 1, "user_ids": [approver.id]})
    eq((rule.name, rule.rule_type, rule.approvals_required), ("Reviewers", "regular", 1), "rule")
    eq(usernames(rule.users), [approver.username], "rule users")
    eq(usernames(rule.eligible_approvers), [approver.username], "rule eligible_approvers")
    eq([(r.id, r.name) for r in project.approvalrules.list(get_all=True)], [(rule.id, "Reviewers")], "approvalrules.list")
    state["rule"] = rule


@case("project.approvalrules: create a second rule, save() it (PUT), delete() it")
def _():
    project, author = need("project", "author")
    extra = project.approvalrules.create({"name": "Temporary", "approvals_required": 2, "user_ids": [author.id]})
    eq((extra.approvals_required, usernames(extra.users)), (2, [author.username]), "second rule")
    # A fresh object from list(): python-gitlab copies a list attribute into the changes as soon as it is read (to
    # notice in-place edits), so save() on `extra` would send users=[{...user...}] too, which GitLab's
    # CommaSeparatedToIntegerArray turns into user ids 0 (nobody). The spec makes name and approvals_required
    # required on update, so the script sends both.
    (extra,) = [r for r in project.approvalrules.list(get_all=True) if r.id == extra.id]
    extra.name = "Temporary"
    extra.approvals_required = 0
    extra.save()
    got = [r for r in project.approvalrules.list(get_all=True) if r.id == extra.id]
    eq([(r.name, r.approvals_required) for r in got], [("Temporary", 0)], "updated rule read back")
    extra.delete()
    eq([r.name for r in project.approvalrules.list(get_all=True)], ["Reviewers"], "rules after delete")


@case("project.commits.create: README on the protected main of an empty project (root pushes; author is the caller)")
def _():
    (project,) = need("project")
    c = project.commits.create(
        {
            "branch": "main",
            "commit_message": "Add README\n\nFirst commit.",
            "actions": [{"action": "create", "file_path": "README.md", "content": "# Hello\n"}],
        }
    )
    check(SHA.match(c.id), f"commit id {c.id!r}")
    eq((c.short_id, c.title, c.message, c.parent_ids), (c.id[:8], "Add README", "Add README\n\nFirst commit.", []), "commit")
    root = gl.users.get(1)
    eq((c.author_name, c.author_email, c.committer_name, c.committer_email), (root.name, root.email, root.name, root.email), "author and committer")
    got = project.commits.get(c.id)
    eq((got.id, got.title, got.parent_ids), (c.id, "Add README", []), "commits.get")
    main = project.branches.get("main")
    eq((main.name, main.commit["id"], main.protected, main.default), ("main", c.id, True, True), "main branch (protected before the commit)")
    state["readme"] = c


@case("project.branches.create from main as a developer (sudo); a commit by her on it; commits.list(ref_name=)")
def _():
    project, author, readme = need("project", "author", "readme")
    b = project.branches.create({"branch": "feature", "ref": "main"}, sudo=author.username)
    eq((b.name, b.commit["id"], b.protected, b.default), ("feature", readme.id, False, False), "created branch")
    state["feature_at_creation"] = b
    c = project.commits.create(
        {
            "branch": "feature",
            "commit_message": "Fix the crash",
            "actions": [
                {"action": "update", "file_path": "README.md", "content": "# Hello\n\nNo more crash.\n"},
                {"action": "create", "file_path": "src/fix.py", "content": "print('fixed')\n"},
            ],
        },
        sudo=author.username,
    )
    eq((c.parent_ids, c.author_name, c.author_email, c.committer_email), ([readme.id], author.name, author.email, author.email), "feature commit")
    eq([x.id for x in project.commits.list(ref_name="feature", get_all=True)], [c.id, readme.id], "feature history, newest first")
    eq([x.id for x in project.commits.list(ref_name="main", get_all=True)], [readme.id], "main history")
    eq(project.branches.get("feature").commit["id"], c.id, "feature head moved")
    diff = project.commits.get(c.id).diff()
    eq(sorted((d["old_path"], d["new_path"], d["new_file"], d["deleted_file"]) for d in diff), [("README.md", "README.md", False, False), ("src/fix.py", "src/fix.py", True, False)], "commit.diff()")
    check(any("+print('fixed')" in d["diff"] for d in diff), f"diff text lacks the added line: {diff}")
    check({"main", "feature"} <= {x.name for x in project.branches.list(get_all=True)}, "branches.list")
    state["fix"] = c


@case("protected main: branch flags (developers merge, maintainers push); a developer's commit to main is refused")
def _():
    project, author, readme = need("project", "author", "readme")
    main = project.branches.get("main")
    eq((main.protected, main.developers_can_push, main.developers_can_merge), (True, False, True), "main branch flags")
    eq(project.branches.get("feature").protected, False, "feature not protected")
    action = [{"action": "create", "file_path": "direct.txt", "content": "no"}]
    raises(
        gitlab.exceptions.GitlabCreateError,
        403,
        lambda: project.commits.create({"branch": "main", "commit_message": "Direct push", "actions": action}, sudo=author.username),
    )
    eq(project.branches.get("main").commit["id"], readme.id, "main unchanged after the refused push")


@case("project.mergerequests.create by the developer with 'Closes #n'; get/list; changes(); commits()")
def _():
    project, author, readme, fix = need("project", "author", "readme", "fix")
    issue = project.issues.create({"title": "It crashes"})
    mr = project.mergerequests.create(
        {"source_branch": "feature", "target_branch": "main", "title": "Fix the crash", "description": f"Closes #{issue.iid}"},
        sudo=author.username,
    )
    eq((mr.iid, mr.state, mr.title, mr.author["username"], mr.source_branch, mr.target_branch), (1, "opened", "Fix the crash", author.username, "feature", "main"), "created MR")
    eq((mr.sha, mr.merge_commit_sha, mr.draft), (fix.id, None, False), "sha, merge_commit_sha, draft")
    eq(mr.diff_refs, {"base_sha": readme.id, "head_sha": fix.id, "start_sha": readme.id}, "diff_refs")
    got = project.mergerequests.get(mr.iid)
    eq((got.id, got.sha, got.changes_count), (mr.id, fix.id, "2"), "mergerequests.get")
    eq([m.iid for m in project.mergerequests.list(state="opened", source_branch="feature", get_all=True)], [mr.iid], "list by state and source_branch")
    eq([m.iid for m in project.mergerequests.list(state="merged", get_all=True)], [], "no merged MR yet")
    changes = got.changes()
    eq(sorted((c["old_path"], c["new_path"], c["new_file"]) for c in changes["changes"]), [("README.md", "README.md", False), ("src/fix.py", "src/fix.py", True)], "changes()")
    check(any("+No more crash." in c["diff"] for c in changes["changes"]), f"README diff lacks the added line: {changes['changes']}")
    eq([c.id for c in got.commits()], [fix.id], "commits()")
    eq([i.iid for i in got.closes_issues()], [issue.iid], "closes_issues()")
    state.update(mr=got, issue=issue)


@case("mr.approval_state.get() and mr.approvals.get() before any approval: approvals_left 1, approved false")
def _():
    mr, approver = need("mr", "approver")
    st = mr.approval_state.get()
    eq(st.approval_rules_overwritten, False, "approval_rules_overwritten")
    eq([(r["name"], r["rule_type"], r["approvals_required"], r["approved"], r["approved_by"]) for r in st.rules], [("Reviewers", "regular", 1, False, [])], "rules")
    eq(usernames(st.rules[0]["eligible_approvers"]), [approver.username], "eligible approvers")
    ap = mr.approvals.get()
    eq((ap.approvals_required, ap.approvals_left, ap.approved, ap.approved_by), (1, 1, False, []), "approvals")


@case("mr.approve: wrong sha 409 with GitLab's message; the author may not approve (401)")
def _():
    project, mr, author, approver, fix = need("project", "mr", "author", "approver", "fix")
    wrong = "0" * 40
    mine = project.mergerequests.get(mr.iid, lazy=True)
    raises(gitlab.exceptions.GitlabMRApprovalError, 409, lambda: mine.approve(sha=wrong, sudo=approver.username), f"SHA does not match HEAD of source branch: {fix.id}")
    # merge_requests_author_approval is off by default. python-gitlab raises GitlabAuthenticationError for any 401.
    raises(gitlab.exceptions.GitlabAuthenticationError, 401, lambda: mine.approve(sha=fix.id, sudo=author.username))
    eq(mr.approvals.get().approved_by, [], "nobody approved")


@case("mr.approve(sha=HEAD) by the named approver: approved, approvals_left 0; approval_state rule approved; second approve 401")
def _():
    project, mr, approver, fix = need("project", "mr", "approver", "fix")
    mine = project.mergerequests.get(mr.iid, lazy=True)
    answer = mine.approve(sha=fix.id, sudo=approver.username)
    eq((answer["approvals_left"], answer["approved"]), (0, True), "approve response")
    eq(approvers(answer), [approver.username], "approve response approved_by")
    ap = mr.approvals.get()
    eq((ap.approvals_required, ap.approvals_left, ap.approved), (1, 0, True), "approvals after approve")
    eq(approvers(ap.attributes), [approver.username], "approved_by")
    st = mr.approval_state.get()
    eq([(r["name"], r["approved"], usernames(r["approved_by"])) for r in st.rules], [("Reviewers", True, [approver.username])], "approval_state rules")
    raises(gitlab.exceptions.GitlabAuthenticationError, 401, lambda: mine.approve(sha=fix.id, sudo=approver.username))


@case("mr.unapprove(): approvals_left back to 1; unapprove again 404; approve again")
def _():
    project, mr, approver, fix = need("project", "mr", "approver", "fix")
    mine = project.mergerequests.get(mr.iid, lazy=True)
    mine.unapprove(sudo=approver.username)
    ap = mr.approvals.get()
    eq((ap.approvals_left, ap.approved, ap.approved_by), (1, False, []), "after unapprove")
    eq([r["approved"] for r in mr.approval_state.get().rules], [False], "rule approved after unapprove")
    raises(gitlab.exceptions.GitlabMRApprovalError, 404, lambda: mine.unapprove(sudo=approver.username))
    mine.approve(sha=fix.id, sudo=approver.username)
    eq(mr.approvals.get().approvals_left, 0, "approved again")


@case("a commit pushed to the source branch moves the MR's sha and removes the approval (reset_approvals_on_push)")
def _():
    project, mr, author, fix = need("project", "mr", "author", "fix")
    c = project.commits.create(
        {"branch": "feature", "commit_message": "Add a test", "actions": [{"action": "create", "file_path": "test_fix.py", "content": "assert True\n"}]},
        sudo=author.username,
    )
    eq(c.parent_ids, [fix.id], "new commit parent")
    got = project.mergerequests.get(mr.iid)
    eq((got.sha, got.diff_refs["head_sha"], got.changes_count), (c.id, c.id, "3"), "MR HEAD after the push")
    eq([x.id for x in got.commits()], [c.id, fix.id], "MR commits newest first")
    ap = got.approvals.get()
    eq((ap.approvals_left, ap.approved, ap.approved_by), (1, False, []), "approvals reset by the push")
    state["head"] = c


@case("mr.merge before approval: 405; approve the new HEAD; merge with a stale sha: 409")
def _():
    project, mr, author, approver, fix, head = need("project", "mr", "author", "approver", "fix", "head")
    mine = project.mergerequests.get(mr.iid, lazy=True)
    raises(gitlab.exceptions.GitlabMRClosedError, 405, lambda: mine.merge(sha=head.id, sudo=author.username))
    # An approval for the old HEAD is refused now.
    raises(gitlab.exceptions.GitlabMRApprovalError, 409, lambda: mine.approve(sha=fix.id, sudo=approver.username))
    mine.approve(sha=head.id, sudo=approver.username)
    eq(mr.approvals.get().approved, True, "approved at the new HEAD")
    # python-gitlab 3.12's merge() has no sha argument: extra keywords go into the query string, which GitLab reads too.
    raises(gitlab.exceptions.GitlabMRClosedError, 409, lambda: mine.merge(sha=fix.id, sudo=author.username), "SHA does not match HEAD of source branch")
    eq(project.mergerequests.get(mr.iid).state, "opened", "still open")


@case("mr.merge(sha=HEAD) by the developer: merged, main moves to the merge commit, 'Closes #n' closes the issue")
def _():
    project, mr, author, readme, head, issue = need("project", "mr", "author", "readme", "head", "issue")
    mine = project.mergerequests.get(mr.iid, lazy=True)
    merged = mine.merge(sha=head.id, sudo=author.username)
    eq((merged["state"], merged["merged_by"]["username"], merged["merge_user"]["username"]), ("merged", author.username, author.username), "merge response")
    check(SHA.match(merged["merge_commit_sha"] or ""), f"merge_commit_sha {merged['merge_commit_sha']!r}")
    check(merged["merged_at"] and merged["merged_at"].endswith("Z"), f"merged_at {merged['merged_at']!r}")
    main = project.branches.get("main")
    eq(main.commit["id"], merged["merge_commit_sha"], "main head")
    eq(project.commits.get(merged["merge_commit_sha"]).parent_ids, [readme.id, head.id], "merge commit parents")
    eq(project.branches.get("feature").merged, True, "feature merged")
    eq([m.iid for m in project.mergerequests.list(state="merged", get_all=True)], [mr.iid], "merged list")
    closed = project.issues.get(issue.iid)
    # closed_by is both a field and a method of ProjectIssue: the field is read from the attributes.
    eq((closed.state, (closed.attributes["closed_by"] or {}).get("username")), ("closed", author.username), "issue closed by the merge")
    eq([m["iid"] for m in closed.closed_by()], [mr.iid], "issue.closed_by()")
    eq([m["iid"] for m in closed.related_merge_requests()], [mr.iid], "issue.related_merge_requests()")
    raises(gitlab.exceptions.GitlabMRClosedError, 405, lambda: mine.merge(sha=head.id, sudo=author.username))


@case("a second MR: mr.approval_rules.create/list/delete, approvals.set_approvers(), approvals.update(approvals_required)")
def _():
    project, author, approver = need("project", "author", "approver")
    project.branches.create({"branch": "docs", "ref": "main"}, sudo=author.username)
    project.commits.create(
        {"branch": "docs", "commit_message": "Notes", "actions": [{"action": "create", "file_path": "NOTES.md", "content": "notes\n"}]},
        sudo=author.username,
    )
    mr = project.mergerequests.create({"source_branch": "docs", "target_branch": "main", "title": "Notes"}, sudo=author.username)
    st = mr.approval_state.get()
    eq((st.approval_rules_overwritten, [r["name"] for r in st.rules]), (False, ["Reviewers"]), "project rule applies")
    # python-gitlab 3.12 also puts id='project_id' and merge_request_iid='iid' (its attribute names) into the body;
    # the path's values win, as in Grape.
    rule = mr.approval_rules.create({"name": "Docs reviewers", "approvals_required": 1, "user_ids": [approver.id]})
    eq((rule.name, rule.rule_type, rule.approvals_required, rule.source_rule, rule.overridden), ("Docs reviewers", "regular", 1, None, False), "MR rule")
    eq(usernames(rule.users), [approver.username], "MR rule users")
    st = mr.approval_state.get()
    eq((st.approval_rules_overwritten, [r["name"] for r in st.rules]), (True, ["Docs reviewers"]), "MR rules overwrite the project's")
    # set_approvers() lists the MR rules and creates one under a new name (it sends rule_type=regular too). Not used to
    # update: 3.12's ProjectMergeRequestApprovalRule.save() PUTs to approval_rules/<project id> (a client bug).
    mr.approvals.set_approvers(1, [approver.id], approval_rule_name="Second look")
    eq(sorted(r.name for r in mr.approval_rules.list(get_all=True)), ["Docs reviewers", "Second look"], "MR rules")
    mr.approval_rules.delete(rule.id)
    eq([r.name for r in mr.approval_rules.list(get_all=True)], ["Second look"], "after delete")
    # The deprecated approvals_required sets the MR's any_approver rule: required = max(regular 1, any_approver 2).
    mr.approvals.update(new_data={"approvals_required": 2})
    ap = mr.approvals.get()
    eq((ap.approvals_required, ap.approvals_left), (2, 2), "approvals with any_approver 2")
    mr.approve(sudo=approver.username)
    ap = mr.approvals.get()
    eq((ap.approvals_left, ap.approved), (1, False), "one approval counts for both rules")
    mr.state_event = "close"
    mr.save()
    eq(project.mergerequests.get(mr.iid).state, "closed", "closed")


@case("after the merge: project.files.get().decode(), files.raw(), repository_tree(), repository_compare(readme, merge)")
def _():
    project, readme, head = need("project", "readme", "head")
    main_sha = project.branches.get("main").commit["id"]
    f = project.files.get(file_path="README.md", ref="main")
    eq((f.file_name, f.file_path, f.encoding, f.decode()), ("README.md", "README.md", "base64", b"# Hello\n\nNo more crash.\n"), "README on main")
    eq((f.ref, f.commit_id), ("main", main_sha), "ref and commit_id")
    eq(project.files.raw(file_path="src/fix.py", ref="main"), b"print('fixed')\n", "raw file")
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: project.files.get(file_path="nope.txt", ref="main"))
    tree = project.repository_tree(ref="main", get_all=True)
    eq(sorted((t["name"], t["type"]) for t in tree), [("README.md", "blob"), ("src", "tree"), ("test_fix.py", "blob")], "tree of main")
    cmp = project.repository_compare(readme.id, main_sha)
    eq(sorted(c["id"] for c in cmp["commits"]), sorted([state["fix"].id, head.id, main_sha]), "compare commits")
    eq(sorted(d["new_path"] for d in cmp["diffs"]), ["README.md", "src/fix.py", "test_fix.py"], "compare diffs")
    eq(cmp["compare_same_ref"], False, "compare_same_ref")


@case("merge_requests_disable_committers_approval: a member who committed to the source branch cannot approve (401)")
def _():
    project, author, approver, rule = need("project", "author", "approver", "rule")
    helper = gl.users.create(
        {"email": f"py-helper-{TAG}@example.com", "username": f"py-helper-{TAG}", "name": f"Py Helper {TAG}", "password": f"Pw-{secrets.token_hex(8)}-x9", "skip_confirmation": True}
    )
    project.members.create({"user_id": helper.id, "access_level": gitlab.const.DEVELOPER_ACCESS})
    conf = project.approvals.get()
    conf.merge_requests_disable_committers_approval = True
    conf.save()
    # A fresh rule object: the one from create() had its users list read, which python-gitlab then sends back.
    (rule,) = [r for r in project.approvalrules.list(get_all=True) if r.id == rule.id]
    rule.user_ids = [approver.id, helper.id]
    rule.name = "Reviewers"
    rule.approvals_required = 1
    rule.save()
    project.branches.create({"branch": "helped", "ref": "main"}, sudo=author.username)
    for who, path in ((author, "a.txt"), (helper, "b.txt")):
        project.commits.create(
            {"branch": "helped", "commit_message": f"Add {path}", "actions": [{"action": "create", "file_path": path, "content": path}]},
            sudo=who.username,
        )
    mr = project.mergerequests.create({"source_branch": "helped", "target_branch": "main", "title": "Helped"}, sudo=author.username)
    (st_rule,) = mr.approval_state.get().rules
    eq(usernames(st_rule["eligible_approvers"]), [approver.username], "the committer is not an eligible approver")
    eq(mr.approvals.get(sudo=helper.username).user_can_approve, False, "user_can_approve for the committer")
    raises(gitlab.exceptions.GitlabAuthenticationError, 401, lambda: mr.approve(sudo=helper.username))
    eq(mr.approvals.get().approved_by, [], "no approval recorded")
    mr.approve(sudo=approver.username)
    eq(mr.approvals.get().approved, True, "the other approver can")
    conf.merge_requests_disable_committers_approval = False
    conf.save()
    eq(project.approvals.get().merge_requests_disable_committers_approval, False, "setting restored")
    state["helped"] = mr


@case("concurrent approvals by one user (8 threads): one 201, the rest 401, one approval recorded")
def _():
    import concurrent.futures

    project, author, approver = need("project", "author", "approver")
    project.branches.create({"branch": "race", "ref": "main"}, sudo=author.username)
    project.commits.create(
        {"branch": "race", "commit_message": "Race", "actions": [{"action": "create", "file_path": "race.txt", "content": "go"}]},
        sudo=author.username,
    )
    mr = project.mergerequests.create({"source_branch": "race", "target_branch": "main", "title": "Race"}, sudo=author.username)

    def approve_once(_):
        # Each thread has its own session (requests sessions are not thread-safe).
        mine = client(ROOT).projects.get(project.id, lazy=True).mergerequests.get(mr.iid, lazy=True)
        try:
            mine.approve(sha=mr.sha, sudo=approver.username)
            return 201
        except gitlab.exceptions.GitlabError as e:
            return e.response_code

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        codes = sorted(pool.map(approve_once, range(8)))
    eq(codes, [201] + [401] * 7, "statuses")
    eq(approvers(mr.approvals.get().attributes), [approver.username], "approved_by")


@case("mr.save() with assignee_ids, reviewer_ids, labels, milestone_id; merge_when_pipeline_succeeds: 405 when mergeable, queued while unapproved")
def _():
    project, author, approver, mr = need("project", "author", "approver", "helped")
    ms = project.milestones.create({"title": f"v1-{TAG}"})
    mine = project.mergerequests.get(mr.iid)
    mine.assignee_ids = [author.id]
    mine.reviewer_ids = [approver.id]
    mine.labels = ["backend", "review"]
    mine.milestone_id = ms.id
    mine.description = "Helped by a colleague"
    mine.save()
    got = project.mergerequests.get(mr.iid)
    eq(usernames(got.assignees), [author.username], "assignees")
    eq(usernames(got.reviewers), [approver.username], "reviewers")
    eq((sorted(got.labels), got.milestone["title"], got.description), (["backend", "review"], f"v1-{TAG}", "Helped by a colleague"), "labels, milestone, description")
    eq([m.iid for m in project.mergerequests.list(labels=["review"], milestone=f"v1-{TAG}", get_all=True)], [mr.iid], "list by labels and milestone")
    eq([m.iid for m in project.mergerequests.list(reviewer_id=approver.id, state="opened", get_all=True)], [mr.iid], "list by reviewer_id")
    # Without a pipeline GitLab 17 only accepts an automatic merge while a check still fails
    # (merge-when-checks-pass); a mergeable request answers 405 to merge_when_pipeline_succeeds=true.
    head = got.sha
    raises(gitlab.exceptions.GitlabMRClosedError, 405, lambda: got.merge(merge_when_pipeline_succeeds=True, sha=head, sudo=author.username))
    # unapprove() and approve() replace the object's attributes with the approvals response (python-gitlab 3.12).
    got.unapprove(sudo=approver.username)
    queued = got.merge(merge_when_pipeline_succeeds=True, sha=head, sudo=author.username)
    eq((queued["state"], queued["merge_when_pipeline_succeeds"], queued["merge_user"]["username"]), ("opened", True, author.username), "automatic merge set")
    state["queued"] = mr


@case("branch merged flag: false for a new branch at main's HEAD (same head is not merged, Repository#merged_to_root_ref?)")
def _():
    (b,) = need("feature_at_creation")
    eq(b.merged, False, "merged of the branch as created")


@case("files.get(README.md, main).last_commit_id after the merge: the feature commit that changed it (git log -1 main -- path)")
def _():
    project, fix = need("project", "fix")
    main_sha = project.branches.get("main").commit["id"]
    f = project.files.get(file_path="README.md", ref="main")
    # The merge commit is TREESAME to its second parent for README.md, so git's history simplification (Gitaly's
    # LastCommitForPath runs git log) follows that side and names the commit that changed the file.
    eq(f.last_commit_id, fix.id, f"last_commit_id (the merge commit is {main_sha})")


@case("an approval that makes a queued merge request mergeable merges it as the user who set the automatic merge")
def _():
    project, author, approver, mr = need("project", "author", "approver", "queued")
    # EE subscribes ProcessAutoMergeFromEventWorker to MergeRequests::ApprovedEvent (ee/lib/ee/gitlab/event_store.rb).
    project.mergerequests.get(mr.iid, lazy=True).approve(sudo=approver.username)
    done = project.mergerequests.get(mr.iid)
    eq((done.state, (done.merged_by or {}).get("username")), ("merged", author.username), "merged once approved")


@case("code owners: CODEOWNERS on main requiring code owner approval; mr.approval_rules lists the code_owner rule; only the owner's approval satisfies it")
def _():
    author, approver = need("author", "approver")
    other = new_user("other")
    project = gl.projects.create({"name": f"Py Owners {TAG}", "visibility": "private"})
    for u, level in ((author, gitlab.const.DEVELOPER_ACCESS), (approver, gitlab.const.DEVELOPER_ACCESS), (other, gitlab.const.DEVELOPER_ACCESS)):
        project.members.create({"user_id": u.id, "access_level": level})
    project.protectedbranches.create({"name": "main", "push_access_level": 40, "merge_access_level": 30, "code_owner_approval_required": True})
    codeowners = f"# owners\n* @{other.username}\n\n[Backend][1]\n/src/ @{approver.username}\n"
    project.commits.create({"branch": "main", "commit_message": "Add CODEOWNERS", "actions": [{"action": "create", "file_path": ".gitlab/CODEOWNERS", "content": codeowners}]})
    project.branches.create({"branch": "owned", "ref": "main"})
    project.commits.create(
        {"branch": "owned", "commit_message": "Change src", "actions": [{"action": "create", "file_path": "src/app.py", "content": "print(1)\n"}]}, sudo=author.username
    )
    mr = project.mergerequests.create({"source_branch": "owned", "target_branch": "main", "title": "Owned change"}, sudo=author.username)
    rules = [r for r in mr.approval_rules.list(get_all=True) if r.rule_type == "code_owner"]
    eq(sorted((r.section, r.name, usernames(r.users)) for r in rules), sorted([("codeowners", "*", [other.username]), ("Backend", "/src/", [approver.username])]), "code owner rules")
    st = mr.approval_state.get()
    eq(sorted((r["name"], r["code_owner"], r["approvals_required"], r["approved"]) for r in st.rules), [("*", True, 1, False), ("/src/", True, 1, False)], "approval_state rules")
    # Code owner rules are the system's: the API refuses to change them.
    raises(gitlab.exceptions.GitlabHttpError, 403, lambda: gl.http_put(f"/projects/{project.id}/merge_requests/{mr.iid}/approval_rules/{rules[0].id}", post_data={"name": "x", "approvals_required": 0}))
    mr.approve(sudo=other.username)
    eq(project.mergerequests.get(mr.iid).approvals.get().approvals_left, 1, "approvals_left after the * owner")
    mr.approve(sudo=approver.username)
    ap = project.mergerequests.get(mr.iid).approvals.get()
    eq((ap.approvals_left, ap.approved), (0, True), "approved by both code owners")
    state.update(owners_project=project, owners_mr=mr)


@case("mr.notes: create, list with the system notes, save() an edit, delete(); mr.awardemojis and note awardemojis: thumbsup counts in upvotes")
def _():
    project, mr, author, approver = need("owners_project", "owners_mr", "author", "approver")
    mr = project.mergerequests.get(mr.iid)
    note = mr.notes.create({"body": "Looks good to me"}, sudo=approver.username)
    eq((note.body, note.noteable_type, note.noteable_iid, note.author["username"], note.system), ("Looks good to me", "MergeRequest", mr.iid, approver.username, False), "created note")
    bodies = [n.body for n in mr.notes.list(get_all=True, sort="asc")]
    check("approved this merge request" in bodies, f"system notes missing from {bodies}")
    eq(bodies[-1], "Looks good to me", "newest note last (sort=asc)")
    editable = mr.notes.get(note.id, sudo=approver.username)
    editable.body = "Looks great"
    editable.save(sudo=approver.username)
    eq(mr.notes.get(note.id).body, "Looks great", "edited note")
    award = mr.awardemojis.create({"name": "thumbsup"}, sudo=author.username)
    eq((award.name, award.awardable_type, award.user["username"]), ("thumbsup", "MergeRequest", author.username), "award")
    got = project.mergerequests.get(mr.iid)
    eq((got.upvotes, got.downvotes, got.user_notes_count), (1, 0, 1), "upvotes, downvotes, user_notes_count")
    na = editable.awardemojis.create({"name": "tada"}, sudo=author.username)
    eq([a.name for a in editable.awardemojis.list(get_all=True)], ["tada"], "note award emoji")
    editable.awardemojis.delete(na.id, sudo=author.username)
    editable.delete(sudo=approver.username)
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: mr.notes.get(note.id))
    eq(project.mergerequests.get(mr.iid).user_notes_count, 0, "user_notes_count after delete")


@case("mr.diffs: one version per push, newest first (list), a version's commits and diffs (get); mr.todo() then 304; mr.pipelines.list() is empty")
def _():
    project, mr, author = need("owners_project", "owners_mr", "author")
    mr = project.mergerequests.get(mr.iid)
    first = mr.diffs.list(get_all=True)
    eq([(v.head_commit_sha, v.state, v.real_size) for v in first], [(mr.sha, "collected", "1")], "one version after create")
    pushed = project.commits.create(
        {"branch": "owned", "commit_message": "More src", "actions": [{"action": "create", "file_path": "src/more.py", "content": "print(2)\n"}]}, sudo=author.username
    )
    versions = mr.diffs.list(get_all=True)
    eq([v.head_commit_sha for v in versions], [pushed.id, mr.sha], "versions newest first")
    eq(versions[0].base_commit_sha, versions[1].base_commit_sha, "same base")
    full = mr.diffs.get(versions[0].id)
    eq([c["id"] for c in full.commits], [pushed.id, mr.sha], "version commits")
    eq(sorted(d["new_path"] for d in full.diffs), ["src/app.py", "src/more.py"], "version diffs")
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: mr.diffs.get(999999999))
    mr.todo(sudo=author.username)
    raises(gitlab.exceptions.GitlabTodoError, 304, lambda: mr.todo(sudo=author.username))
    eq([t.target["iid"] for t in gl.todos.list(type="MergeRequest", action="marked", get_all=True, sudo=author.username)], [mr.iid], "the to-do is listed")
    eq(list(mr.pipelines.list(get_all=True)), [], "no pipelines")


@case("fast-forward project: project.merge_method='ff' via save(); a merge request behind main needs a rebase (merge 422), mr.rebase(), then merge moves main to its head")
def _():
    author, approver = need("author", "approver")
    project = gl.projects.create({"name": f"Py FF {TAG}", "visibility": "private"})
    project.members.create({"user_id": author.id, "access_level": gitlab.const.DEVELOPER_ACCESS})
    project.merge_method = "ff"
    project.save()
    eq(gl.projects.get(project.id).merge_method, "ff", "merge_method read back")
    project.commits.create({"branch": "main", "commit_message": "Init", "actions": [{"action": "create", "file_path": "a.txt", "content": "a\n"}]})
    project.branches.create({"branch": "topic", "ref": "main"})
    project.commits.create({"branch": "topic", "commit_message": "Topic", "actions": [{"action": "create", "file_path": "b.txt", "content": "b\n"}]}, sudo=author.username)
    mr = project.mergerequests.create({"source_branch": "topic", "target_branch": "main", "title": "Topic"}, sudo=author.username)
    main = project.commits.create({"branch": "main", "commit_message": "Main moves", "actions": [{"action": "create", "file_path": "c.txt", "content": "c\n"}]})
    got = project.mergerequests.get(mr.iid)
    eq(got.detailed_merge_status, "need_rebase", "detailed_merge_status")
    raises(gitlab.exceptions.GitlabMRClosedError, 422, lambda: got.merge(), "Branch cannot be merged")
    eq(got.rebase(sudo=author.username), {"rebase_in_progress": True}, "rebase() answer: queued")
    # The rebase runs as a job: poll include_rebase_in_progress until it is done, as GitLab's docs say.
    deadline = time.monotonic() + 30
    got = project.mergerequests.get(mr.iid, include_rebase_in_progress=True)
    while got.rebase_in_progress and time.monotonic() < deadline:
        time.sleep(0.2)
        got = project.mergerequests.get(mr.iid, include_rebase_in_progress=True)
    eq((got.rebase_in_progress, got.merge_error, got.detailed_merge_status, got.diff_refs["base_sha"]), (False, None, "mergeable", main.id), "rebased")
    got.merge()
    done = project.mergerequests.get(mr.iid)
    eq((done.state, done.merge_commit_sha), ("merged", None), "fast-forward merge")
    eq(project.branches.get("main").commit["id"], got.sha, "main at the merge request head")


print("END", flush=True)
sys.exit(0)
