-- Full-text index of merge request titles and descriptions for `search=` on the merge request
-- lists (merge-requests/finder.ts), built like issues_search (0009): FTS5 with the trigram
-- tokenizer answers substring queries (GitLab's ILIKE '%word%' for words of 3+ characters) from
-- an index. External content keyed by merge_requests.id (rowid), kept in step by triggers so that
-- every write (create, update, delete, project and user cascades) updates it inside its own
-- statement, hence inside the same batch, on D1 and libSQL alike.
CREATE VIRTUAL TABLE `merge_requests_search` USING fts5(title, description, content='merge_requests', content_rowid='id', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `merge_requests_search_insert` AFTER INSERT ON `merge_requests` BEGIN
  INSERT INTO merge_requests_search(rowid, title, description) VALUES (new.id, new.title, new.description);
END;
--> statement-breakpoint
CREATE TRIGGER `merge_requests_search_delete` AFTER DELETE ON `merge_requests` BEGIN
  INSERT INTO merge_requests_search(merge_requests_search, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
END;
--> statement-breakpoint
CREATE TRIGGER `merge_requests_search_update` AFTER UPDATE OF id, title, description ON `merge_requests` BEGIN
  INSERT INTO merge_requests_search(merge_requests_search, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
  INSERT INTO merge_requests_search(rowid, title, description) VALUES (new.id, new.title, new.description);
END;
--> statement-breakpoint
INSERT INTO merge_requests_search(merge_requests_search) VALUES ('rebuild');
