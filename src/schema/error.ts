import { z } from 'zod';

/** The public API's error body (README, "What it does where the spec is silent"); the extras appear on the 400s. */
export const apiErrorBodySchema = z.looseObject({
  statusCode: z.number().int(),
  error: z.string(),
  message: z.string(),
  allowedEmails: z.array(z.string()).optional(),
  allowedDomains: z.array(z.string()).optional(),
  docsUrl: z.string().optional(),
});
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;
