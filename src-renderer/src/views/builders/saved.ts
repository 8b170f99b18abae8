// Saved searches, per instance and builder, in localStorage.
import { useSyncExternalStore } from 'react';

export interface Saved<T> {
  name: string;
  savedAt: string;
  value: T;
}

const keyOf = (builder: 'v2' | 'public', instance: string) => `radar-console.saved.${builder}.${instance}`;
const listeners = new Set<() => void>();
let version = 0;

export function loadSaved<T>(builder: 'v2' | 'public', instance: string): Saved<T>[] {
  try {
    const v = JSON.parse(localStorage.getItem(keyOf(builder, instance)) ?? '[]') as unknown;
    return Array.isArray(v) ? (v as Saved<T>[]) : [];
  } catch {
    return [];
  }
}

function store<T>(builder: 'v2' | 'public', instance: string, list: Saved<T>[]): void {
  localStorage.setItem(keyOf(builder, instance), JSON.stringify(list));
  version++;
  for (const l of listeners) l();
}

export function saveSearch<T>(builder: 'v2' | 'public', instance: string, name: string, value: T): void {
  const list = loadSaved<T>(builder, instance).filter((s) => s.name !== name);
  store(builder, instance, [...list, { name, savedAt: new Date().toISOString(), value }]);
}

export function deleteSearch(builder: 'v2' | 'public', instance: string, name: string): void {
  store(builder, instance, loadSaved(builder, instance).filter((s) => s.name !== name));
}

export function useSaved<T>(builder: 'v2' | 'public', instance: string): Saved<T>[] {
  useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => version,
  );
  return loadSaved<T>(builder, instance);
}
