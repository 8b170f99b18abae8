// An instance's name as the console shows it: the main instance's default name in the
// console's language, every other name as its owner wrote it.

/** The name the server gives the main instance until someone renames it. */
export const MAIN_DEFAULT_NAME = 'Main';

export function displayName(i: { kind?: string; id?: string; name: string }, t: (k: string) => string): string {
  return (i.kind === 'main' || i.id === 'main') && i.name === MAIN_DEFAULT_NAME ? t('instances.main') : i.name;
}
