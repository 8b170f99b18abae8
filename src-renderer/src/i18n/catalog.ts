// The console's string catalogs: the base ones and the shift workflow's, merged.
import { complianceEn } from './compliance.en';
import { complianceRu } from './compliance.ru';
import { en, type Strings } from './en';
import { ru } from './ru';
import { workflowEn } from './workflow.en';
import { workflowRu } from './workflow.ru';
import { triageEn } from './triage.en';
import { triageRu } from './triage.ru';

/** A catalog with more strings merged in (nested sections merged key by key). */
function merged(base: Strings, more: Strings): Strings {
  const out: Strings = { ...base };
  for (const [k, v] of Object.entries(more)) {
    const cur = out[k];
    out[k] = typeof v === 'object' && typeof cur === 'object' ? merged(cur, v) : v;
  }
  return out;
}

export const EN = merged(merged(merged(en, workflowEn), triageEn), complianceEn);
export const RU = merged(merged(merged(ru, workflowRu), triageRu), complianceRu);
