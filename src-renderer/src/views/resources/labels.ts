// Field labels: translated where the console knows the field, else its API name.
import type { TFunction } from 'i18next';

export function fieldLabel(t: TFunction, name: string): string {
  return t(`fields.${name}`, { defaultValue: name });
}
