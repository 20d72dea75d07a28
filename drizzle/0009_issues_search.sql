-- Full-text index of issue titles and descriptions for `search=` on the issue lists
-- (services/issue-finder.ts). FTS5 with the trigram tokenizer answers substring queries
-- (GitLab's ILIKE '%word%' for words of 3+ characters) from an index. External content: the
-- text stays in `issues`, the index is keyed by issues.id (rowid) and kept in step by the
-- triggers below, so no write path can forget it. Drizzle cannot express virtual tables or
-- triggers, hence this hand-written migration (drizzle-kit generate --custom).
CREATE VIRTUAL TABLE `issues_search` USING fts5(title, description, content='issues', content_rowid='id', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `issues_search_insert` AFTER INSERT ON `issues` BEGIN
  INSERT INTO issues_search(rowid, title, description) VALUES (new.id, new.title, new.description);
END;
--> statement-breakpoint
CREATE TRIGGER `issues_search_delete` AFTER DELETE ON `issues` BEGIN
  INSERT INTO issues_search(issues_search, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
END;
--> statement-breakpoint
CREATE TRIGGER `issues_search_update` AFTER UPDATE OF id, title, description ON `issues` BEGIN
  INSERT INTO issues_search(issues_search, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
  INSERT INTO issues_search(rowid, title, description) VALUES (new.id, new.title, new.description);
END;
--> statement-breakpoint
INSERT INTO issues_search(issues_search) VALUES ('rebuild');
