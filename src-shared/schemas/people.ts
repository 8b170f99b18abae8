// People behind user uuids (incident owners, status-change authors, message senders): the
// directory a local database keeps, and the local analyst (the uuid the console sends as
// Pgr-User-Id and the CLI puts in tokens).
import { z } from 'zod';
import { uuidSchema } from './common';

export { LOCAL_USER_ID } from '../ids';

export const personSchema = z
  .object({
    id: z.string(),
    name: z.string().describe('full name'),
    short_name: z.string().describe('as lists show it ("Смирнов А.")'),
    login: z.string().nullable(),
    email: z.string().nullable(),
    role: z.string().nullable().describe('e.g. "SOC L1"'),
  })
  .meta({ id: 'Person' });
export type Person = z.infer<typeof personSchema>;

export const peopleAnswerSchema = z.object({ items: z.array(personSchema) });

export const personInputSchema = z.strictObject({
  id: uuidSchema.optional().describe('the user uuid the platform uses; generated when absent'),
  name: z.string().trim().min(1, 'name should not be empty').max(200),
  short_name: z.string().trim().min(1).max(100).optional(),
  login: z.string().trim().max(100).nullable().optional(),
  email: z.string().trim().max(200).nullable().optional(),
  role: z.string().trim().max(100).nullable().optional(),
});
export type PersonInput = z.infer<typeof personInputSchema>;

export const analystPatchSchema = z.strictObject({
  name: z.string().trim().min(1, 'name should not be empty').max(200),
});

/** "Смирнов Алексей" → "Смирнов А."; a single word stays as it is. */
export function shortNameOf(name: string): string {
  const [last, ...rest] = name.trim().split(/\s+/);
  if (!last) return '';
  const initials = rest.filter((w) => /^\p{L}/u.test(w)).map((w) => `${w[0]!.toUpperCase()}.`);
  return initials.length ? `${last} ${initials.join(' ')}` : last;
}
