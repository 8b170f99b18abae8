// Which paths name the console's files (server/console-files.ts): the port answers these itself,
// before and after its app is built, from the console's folder and nowhere else.
import { describe, expect, it } from 'vitest';
import { consoleFileOf } from '../../src-main/server/console-files';

describe('consoleFileOf', () => {
  it("names the console's files (index, favicons, assets/<name>) and nothing else: no folder above, no hidden file, no other path", () => {
    expect(consoleFileOf('/')).toBe('index.html');
    expect(consoleFileOf('/index.html')).toBe('index.html');
    expect(consoleFileOf('/?x=1')).toBe('index.html');
    expect(consoleFileOf('/favicon.svg')).toBe('favicon.svg');
    expect(consoleFileOf('/assets/start-BWviEVUC.js')).toBe('assets/start-BWviEVUC.js');
    expect(consoleFileOf('/assets/start-BWviEVUC.js?v=2')).toBe('assets/start-BWviEVUC.js');
    for (const url of ['/assets/', '/assets/../secrets.json', '/assets/..', '/assets/.env', '/assets/a/b.js', '/assets/%2e%2e%2fx', '/assets/a%2Fb', '/assets\\x', '/index.htm', '/cruddy/v2/incidents', '/reference/', '//assets/a.js', '/assets//a.js']) {
      expect(consoleFileOf(url), url).toBeNull();
    }
  });
});
