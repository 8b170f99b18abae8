// The API key check: constant-time, without hashing per request, exact in length and bytes.
import { describe, expect, it } from 'vitest';
import { keyChecker } from '../../src-main/server/security';

describe('keyChecker', () => {
  it('accepts exactly the key: not a prefix, an extension, another key of the same length, or empty', () => {
    const ok = keyChecker('test-api-key-0123456789');
    expect(ok('test-api-key-0123456789')).toBe(true);
    expect(ok('test-api-key-0123456788')).toBe(false);
    expect(ok('test-api-key-012345678')).toBe(false);
    expect(ok('test-api-key-01234567890')).toBe(false);
    expect(ok('')).toBe(false);
    expect(ok('Test-api-key-0123456789')).toBe(false);
    // Still right after other keys were checked (the comparison buffer is reused).
    expect(ok('test-api-key-0123456789')).toBe(true);
  });

  it('compares bytes, so keys beyond ASCII work and a same-length look-alike does not', () => {
    const ok = keyChecker('ключ-доступа-2026');
    expect(ok('ключ-доступа-2026')).toBe(true);
    expect(ok('ключ-доступа-2027')).toBe(false);
    expect(ok('kljuch-dostupa-2026-xxxxxxxxxxxxx')).toBe(false);
    expect(ok('ключ-доступа-202')).toBe(false);
  });
});
