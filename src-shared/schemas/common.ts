import { z } from 'zod';
import { UUID_RE } from '../ids';
import { normalizeDate, normalizeTs } from '../time';

export { isUuid, UUID_RE } from '../ids';

export const uuidSchema = z.string().regex(UUID_RE, 'expected a uuid');

/** ISO 8601 input, normalised to the platform's six-digit UTC form. */
export const timestampSchema = z
  .string()
  .transform((v, ctx) => {
    const n = normalizeTs(v);
    if (n === null) {
      ctx.addIssue({ code: 'custom', message: 'expected an ISO 8601 timestamp' });
      return z.NEVER;
    }
    return n;
  })
  .meta({ format: 'date-time', example: '2023-12-20T00:00:01.652259Z' });

export const dateSchema = z
  .string()
  .transform((v, ctx) => {
    const n = normalizeDate(v);
    if (n === null) {
      ctx.addIssue({ code: 'custom', message: 'expected an ISO 8601 date' });
      return z.NEVER;
    }
    return n;
  })
  .meta({ example: '2024-03-01' });

export const errorBodySchema = z
  .object({
    error: z.string(),
    error_code: z.number().int(),
    extra: z.object({ fields: z.array(z.string()) }).optional(),
  })
  .meta({ id: 'Error' });
