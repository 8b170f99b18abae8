// The typed HTTP client of the console (ofetch), validating answers with the shared schemas.
import { ofetch, FetchError } from 'ofetch';
import { z } from 'zod';
import type { SearchRequest } from '../../src-shared/schemas/search';

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const incidentSchema = z.looseObject({
  id: z.string(),
  display_id: z.number().nullable(),
  title: z.string().nullable(),
  status: z.string(),
  risk: z.string().nullable(),
  risklevel: z.number(),
  created_at: z.string(),
});
export type Incident = z.infer<typeof incidentSchema>;

const pageSchema = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), total: z.number() });

export function createClient(apiKey: string, base = '') {
  const call = ofetch.create({ baseURL: base, headers: { PgrApiKey: apiKey, 'Content-Type': 'application/json' } });
  const wrap = async <T>(p: Promise<T>): Promise<T> => {
    try {
      return await p;
    } catch (e) {
      if (e instanceof FetchError) {
        const body = e.data as { error?: string } | undefined;
        throw new ApiFailure(e.statusCode ?? 0, body?.error ?? e.message);
      }
      throw e;
    }
  };
  return {
    async searchIncidents(req: SearchRequest) {
      const raw = await wrap(call('/cruddy/v2/service_asset_findings/search', { method: 'POST', body: req }));
      return pageSchema(incidentSchema).parse(raw);
    },
  };
}
export type Client = ReturnType<typeof createClient>;
