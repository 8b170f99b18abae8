// The console's incident aggregates (GET /console/v1/stats/incidents).
import { z } from 'zod';

export const STAT_BUCKETS = ['day', 'week', 'month', 'auto'] as const;
export type StatBucket = Exclude<(typeof STAT_BUCKETS)[number], 'auto'>;

export const statsAnswerSchema = z
  .strictObject({
    total: z.number().int(),
    bucket: z.enum(['day', 'week', 'month']).describe('the bucket of over_time'),
    by_status: z.array(z.strictObject({ status: z.string(), count: z.number().int() })),
    by_risk: z.array(z.strictObject({ risk: z.string(), count: z.number().int() })),
    over_time: z.array(z.strictObject({ bucket: z.string().describe('first day of the bucket'), status: z.string(), risk: z.string(), count: z.number().int() })),
  })
  .meta({ id: 'IncidentStats' });
export type IncidentStats = z.infer<typeof statsAnswerSchema>;
