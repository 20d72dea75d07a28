-- Every confirmed user's primary address gets its `emails` row, as GitLab keeps one (User after_save,
-- add_primary_email_to_emails!): stored lowercased and stripped, with the user's confirmed_at. A row
-- the address already has (the user's own, left from a change of primary) is confirmed instead.
UPDATE `emails` SET `confirmed_at` = (SELECT `confirmed_at` FROM `users` WHERE `users`.`id` = `emails`.`user_id`)
WHERE `confirmed_at` IS NULL
  AND EXISTS (SELECT 1 FROM `users` WHERE `users`.`id` = `emails`.`user_id` AND `users`.`confirmed_at` IS NOT NULL AND lower(trim(`users`.`email`)) = `emails`.`email`);
--> statement-breakpoint
INSERT OR IGNORE INTO `emails` (`user_id`, `email`, `confirmed_at`, `created_at`)
SELECT `id`, lower(trim(`email`)), `confirmed_at`, `created_at` FROM `users` WHERE `confirmed_at` IS NOT NULL;
