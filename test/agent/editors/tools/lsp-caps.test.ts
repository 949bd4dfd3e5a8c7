// The result cap holds for code navigation when a file's bytes are not UTF-8 (a Latin-1 source
// file, say): the references in a file that no buffer holds carry its lines as read from disk,
// and each such byte reaches the agent as a 3-byte U+FFFD (agent/editors/nvim/connection.ts), so
// a page counted one byte per byte could grow to three times the cap. Through a real pyright (which
// reads the file as U+FFFD too) on each editor and language client: every page of the references
// stays within LIMITS.maxResultBytes, says it is truncated, and the pages make up every reference.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../../../protocol/index.ts';
import type { Driver } from '../../../helpers/editors.ts';
import { clientOf, LSP_EDITORS, lspDriver, SERVERS, type ServerCase } from '../../../helpers/lsp.ts';

const PYRIGHT = SERVERS.find((s) => s.name === 'pyright') as ServerCase;

/** Calls of total_area (and its import: CALLS + 1 references, the fixture has 4 more), each with a comment of Latin-1 "é" (0xE9, not UTF-8 on its own). */
const CALLS = 300;
const legacy = Buffer.concat([
  Buffer.from('from shapes.geometry import total_area\n\n'),
  ...Array.from({ length: CALLS }, () => Buffer.concat([Buffer.from('total_area([])  # '), Buffer.alloc(360, 0xe9), Buffer.from('\n')])),
]);

interface Page {
  total: number;
  truncated: boolean;
  cursor: string | null;
  files: { path: string; references: { line: number; text: string }[] }[];
}

describe.each(LSP_EDITORS)('lsp_references on %s, in a file that is not UTF-8', (editor) => {
  let d: Driver;
  beforeAll(async () => {
    d = await lspDriver(clientOf(editor), PYRIGHT, { files: { 'shapes/legacy.py': legacy } });
  }, 90_000);
  afterAll(() => d?.stop());

  it('keeps every page within the result cap, and the pages make up every reference', async () => {
    const place = { buffer: PYRIGHT.call.file, line: PYRIGHT.call.line, col: PYRIGHT.call.col };
    const seen: string[] = [];
    const legacyTexts: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = (await d.ok('lsp_references', { ...place, max_results: 500, ...(cursor === null ? {} : { cursor }) })) as unknown as Page;
      pages++;
      expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(LIMITS.maxResultBytes);
      expect(page.total).toBe(CALLS + 5);
      for (const f of page.files) {
        for (const r of f.references) seen.push(`${f.path}:${r.line}`);
        if (f.path.endsWith('legacy.py')) legacyTexts.push(...f.references.map((r) => r.text));
      }
      cursor = page.cursor;
      expect(page.truncated).toBe(cursor !== null);
    } while (cursor !== null && pages < 20);
    expect(pages).toBeGreaterThan(1);
    expect(new Set(seen).size).toBe(CALLS + 5);
    // The lines came as read from disk: each Latin-1 byte a U+FFFD.
    expect(legacyTexts).toHaveLength(CALLS + 1);
    expect(legacyTexts.filter((t) => t.includes('\uFFFD'))).toHaveLength(CALLS);
  });
});
