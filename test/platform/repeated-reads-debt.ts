/**
 * Routes that still send a read twice in one request with no write between (issue 13: "no statement
 * is repeated inside one request"), with the most repeats one call of each sends today
 * (`X-Storage-Repeated-Reads`, counted by db/round-trips.ts). round-trip-budget.test.ts holds every
 * other route to none; this list may only shrink, and a listed route that no longer repeats fails
 * the test until it is removed.
 */
export const REPEATED_READS_DEBT: Record<string, number> = {
};
