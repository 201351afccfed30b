DROP INDEX `hosts_host_cpid`;--> statement-breakpoint
CREATE INDEX `hosts_host_cpid` ON `hosts` (`host_cpid`) WHERE host_cpid IS NOT NULL;--> statement-breakpoint
DROP INDEX `users_cpid`;--> statement-breakpoint
CREATE INDEX `users_cpid` ON `users` (`cpid`) WHERE cpid IS NOT NULL;