// The console's string catalogs: the base ones and the shift workflow's, merged.
import { complianceEn } from './compliance.en';
import { complianceRu } from './compliance.ru';
import { en, type Strings } from './en';
import { ru } from './ru';
import { workflowEn } from './workflow.en';
import { workflowRu } from './workflow.ru';

/** A catalog with more strings merged in (nested sections merged key by key). */
function merged(base: Strings, more: Strings): Strings {
  const out: Strings = { ...base };
  for (const [k, v] of Object.entries(more)) {
    const cur = out[k];
    out[k] = typeof v === 'object' && typeof cur === 'object' ? merged(cur, v) : v;
  }
  return out;
}

export const EN = merged(merged(en, workflowEn), complianceEn);
export const RU = merged(merged(ru, workflowRu), complianceRu);
