// Instances the server routes to: the main database, more local databases, remote platforms.
import { z } from 'zod';
import { uuidSchema } from './common';

/** Public API: an instance of the master host's list. */
export const instanceSchema = z
  .object({ id: z.string(), name: z.string(), url: z.string(), sort_order: z.number().int() })
  .meta({ id: 'Instance' });

export const INSTANCE_KINDS = ['main', 'local', 'remote'] as const;
export type InstanceKind = (typeof INSTANCE_KINDS)[number];

const sha256Pin = z
  .string()
  .transform((s) => s.replace(/[:\s]/g, '').toUpperCase())
  .refine((s) => /^[0-9A-F]{64}$/.test(s), 'pinned_sha256 should be a SHA-256 fingerprint (64 hex digits)');

const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'url should be http:// or https://')
  .transform((u) => u.replace(/\/+$/, ''));

export const instanceCommon = {
  name: z.string().trim().min(1, 'name should not be empty').max(120),
  sort_order: z.number().int().min(0).optional(),
  timeout_ms: z.number().int().min(100).max(300_000).optional().describe('per-instance time-out of routed calls'),
};

export const localInstanceInput = z.strictObject({
  kind: z.literal('local'),
  ...instanceCommon,
  db_file: z.string().min(1, 'db_file should not be empty').describe('SQLite file; created and migrated when missing'),
});

export const remoteInstanceInput = z.strictObject({
  kind: z.literal('remote'),
  ...instanceCommon,
  url: httpUrl.describe("the remote platform's base URL (its routing port when remote_instance_id is set)"),
  api_key: z.string().min(1, 'api_key should not be empty').describe('sent as PgrApiKey; stored encrypted or owner-only, never returned'),
  remote_instance_id: uuidSchema.optional().describe('instance on that platform, sent as PgrSelectedInstance'),
  ca_file: z.string().min(1).optional().describe('PEM file of CAs to trust besides the system ones'),
  pinned_sha256: sha256Pin.optional().describe("SHA-256 fingerprint the server certificate must have"),
});

export const instanceInputSchema = z.discriminatedUnion('kind', [localInstanceInput, remoteInstanceInput]);
export type InstanceInput = z.infer<typeof instanceInputSchema>;

export const instancePatchSchema = z
  .strictObject({
    name: instanceCommon.name.optional(),
    sort_order: instanceCommon.sort_order,
    timeout_ms: instanceCommon.timeout_ms.nullable(),
    db_file: z.string().min(1).optional(),
    url: httpUrl.optional(),
    api_key: z.string().min(1).optional(),
    remote_instance_id: uuidSchema.nullable().optional(),
    ca_file: z.string().min(1).nullable().optional(),
    pinned_sha256: sha256Pin.nullable().optional(),
  });
export type InstancePatch = z.infer<typeof instancePatchSchema>;

/** An instance as the console API answers it: never the key, only whether one is set. */
export const instanceViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(INSTANCE_KINDS),
    url: z.string(),
    sort_order: z.number().int(),
    db_file: z.string().nullable(),
    remote_url: z.string().nullable(),
    remote_instance_id: z.string().nullable(),
    ca_file: z.string().nullable(),
    pinned_sha256: z.string().nullable(),
    timeout_ms: z.number().int().nullable(),
    has_api_key: z.boolean(),
  })
  .meta({ id: 'ConsoleInstance' });
export type InstanceView = z.infer<typeof instanceViewSchema>;

export const instanceTestSchema = z
  .object({ ok: z.boolean(), status: z.number().int(), time_ms: z.number(), error: z.string() })
  .meta({ id: 'InstanceTest' });
export type InstanceTest = z.infer<typeof instanceTestSchema>;
