ALTER TABLE `web_hooks` ADD `url_variables` text;--> statement-breakpoint
ALTER TABLE `web_hooks` ADD `custom_headers` text;