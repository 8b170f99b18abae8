// Addresses inside the console (hash routes), shared by views and components.

/** Where a record opens: incidents in the triage view, the rest in the generic one. */
export function recordHref(resource: string, id: string, instance: string): string {
  const inst = instance && instance !== 'main' ? `?instance=${encodeURIComponent(instance)}` : '';
  return resource === 'service_asset_findings' ? `#/incidents/${encodeURIComponent(id)}${inst}` : `#/r/${resource}/${encodeURIComponent(id)}${inst}`;
}
