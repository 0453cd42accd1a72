/** The email API's limits, without zod: the batch path reads them before (and often without) loading it. */
export const MAX_BATCH = 50;
export const SCHEDULE_HORIZON_DAYS = 90;
export const DOCS_URL = 'https://smashsend.com/docs/api/emails';
