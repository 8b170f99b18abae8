// The routing port's envelope (spec: Multi-instance routing; contract.md §3): an array with one
// element per instance asked, each holding that instance's answer under `data`.
import { z } from 'zod';
import { errorBodySchema } from './common';

export const ENVELOPE_FIELDS = ['id', 'name', 'data', 'error', 'status_code', 'time', 'version'] as const;

/** One instance's answer inside the envelope. */
export const envelopeElementOf = <T extends z.ZodType>(data: T) =>
  z.strictObject({
    id: z.string().meta({ format: 'uuid' }).describe('the instance'),
    name: z.string().describe("the instance's name"),
    data: data.describe("the instance's answer (its error body when it failed)"),
    error: z.number().int().describe("0 when the instance answered 2xx; otherwise its HTTP status (502 unreachable, 504 timed out)"),
    status_code: z.number().int().describe("the instance's HTTP status"),
    time: z.string().meta({ format: 'date-time' }).describe('when the answer came'),
    version: z.string().describe("the instance's platform version"),
  });

export const envelopeOf = <T extends z.ZodType>(data: T) => z.array(envelopeElementOf(data));

/** An element whose answer is not known in advance: JSON of any shape, or the error body. */
export const routedElementSchema = envelopeElementOf(z.unknown()).meta({ id: 'RoutedAnswer' });
export type RoutedElement = z.infer<typeof routedElementSchema>;

export const routedErrorElementSchema = envelopeElementOf(errorBodySchema);
