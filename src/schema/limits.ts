/** The email API's limits, without zod: the batch path reads them before (and often without) loading it. */
export const MAX_BATCH = 50;
export const SCHEDULE_HORIZON_DAYS = 90;
export const DOCS_URL = 'https://smashsend.com/docs/api/emails';

/**
 * Request body limits (the spec is silent; the sandbox enforces these): one email or admin call,
 * and a batch of 50 emails. mailroom reads no more than this from any input file or stdin.
 */
export const BODY_LIMIT = 1024 * 1024;
export const BATCH_BODY_LIMIT = 10 * 1024 * 1024;
